import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { api, unwrap } from "@/lib/api";
import type { CurrentUser } from "@/lib/auth";
import { member, renderWithUser } from "@/test/render";
import { ACCESS_KEY_HEADER } from "../../../../worker/src/auth/access-key";
import { QUIET_MS } from "../follow-access";
import { SCREENS } from "../screens";
import AppLayout from "./app-layout";

const renderApp = (user: CurrentUser) =>
  renderWithUser(
    <MemoryRouter initialEntries={["/codes"]}>
      <Routes>
        <Route element={<AppLayout screens={SCREENS} />}>
          <Route path="*" element={<h1 tabIndex={-1}>Codes</h1>} />
        </Route>
      </Routes>
    </MemoryRouter>,
    user,
  );

const sidebarLinks = () =>
  within(screen.getByRole("navigation", { name: "Main" }))
    .getAllByRole("link")
    .map((a) => a.textContent);

/**
 * The API as the server answers a member whose rights are now `current`: every answer carries
 * the key of those rights, and GET /api/user says them.
 */
function serverSays(get: () => CurrentUser) {
  const fetchMock = vi.fn(async (input: RequestInfo | URL) => {
    const path = new URL(String(input), "http://localhost").pathname;
    const body = path === "/api/user" ? get() : { items: [], total: 0, limit: 100 };
    return Response.json(body, { headers: { [ACCESS_KEY_HEADER]: get().accessKey } });
  });
  vi.stubGlobal("fetch", fetchMock);
  return fetchMock;
}

const userCalls = (fetchMock: ReturnType<typeof vi.fn>) => fetchMock.mock.calls.filter(([input]) => String(input).endsWith("/api/user")).length;

describe("the signed-in frame follows the member's rights", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("shows a feature granted, and hides it when removed, at the next answer of any call", async () => {
    let current = member(["dashboard"]);
    const fetchMock = serverSays(() => current);
    renderApp(current);
    expect(sidebarLinks()).not.toContain("Click Log");

    // An admin grants the Click Log; the member's screen asks anything (Codes polls every 2 s).
    current = { ...member(["dashboard", "clicks"]), accessKey: "granted" };
    await act(() => unwrap(api.codes.$get()));
    await waitFor(() => expect(sidebarLinks()).toContain("Click Log"));
    expect(userCalls(fetchMock)).toBe(1);

    // An answer whose key matches the user changes nothing.
    await act(() => unwrap(api.codes.$get()));
    expect(userCalls(fetchMock)).toBe(1);

    current = { ...member(["dashboard"]), accessKey: "removed" };
    await act(() => unwrap(api.codes.$get()));
    await waitFor(() => expect(sidebarLinks()).not.toContain("Click Log"));
  });

  it("on a screen that asks nothing, reloads the user once it has been quiet a while", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    let current = member(["dashboard"]);
    const fetchMock = serverSays(() => current);
    renderApp(current);
    current = { ...member(["dashboard", "clicks"]), accessKey: "granted" };
    await act(() => vi.advanceTimersByTimeAsync(QUIET_MS - 2_000));
    expect(userCalls(fetchMock)).toBe(0);
    await act(() => vi.advanceTimersByTimeAsync(4_000));
    expect(userCalls(fetchMock)).toBe(1);
    vi.useRealTimers();
    await waitFor(() => expect(sidebarLinks()).toContain("Click Log"));
  });
});

describe("the phone navigation sheet", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("gives focus back to the menu button when it closes", async () => {
    vi.stubGlobal("matchMedia", (query: string) => ({ matches: true, media: query, addEventListener() {}, removeEventListener() {} }));
    // The header's notification list asks the API as the frame opens.
    serverSays(() => member(["dashboard"]));
    renderApp(member(["dashboard"]));
    const menu = screen.getByRole("button", { name: "Toggle sidebar" });
    menu.focus();
    fireEvent.click(menu);
    const sheet = await screen.findByRole("dialog", { name: "Navigation" });
    fireEvent.keyDown(sheet, { key: "Escape" });
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    await waitFor(() => expect(document.activeElement).toBe(menu));

    // Following a link closes it too, and focus still lands on the button, not the page body.
    fireEvent.click(menu);
    fireEvent.click(within(await screen.findByRole("dialog", { name: "Navigation" })).getByRole("link", { name: "Transactions" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole("button", { name: "Toggle sidebar" })));
  });
});
