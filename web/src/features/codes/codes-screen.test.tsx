import { act, fireEvent, screen, waitFor } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Toaster } from "@/components/ui/toast";
import { admin, member, renderWithUser } from "@/test/render";
import CodesScreen from "./codes-screen";

const code = (id: number, value: string, secondsAgo: number) => ({
  id,
  code: value,
  subject: `Your code is ${value}`,
  sender: "no-reply@example.com",
  receivedAt: new Date(Date.now() - secondsAgo * 1000).toISOString(),
  extractedAt: new Date(Date.now() - secondsAgo * 1000).toISOString(),
});

const renderScreen = (user = member()) =>
  renderWithUser(
    <MemoryRouter>
      <CodesScreen />
      <Toaster />
    </MemoryRouter>,
    user,
  );

describe("Codes screen", () => {
  let fetchMock: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    fetchMock = vi.fn();
    vi.stubGlobal("fetch", fetchMock);
  });
  afterEach(() => vi.unstubAllGlobals());

  it("shows three skeleton rows while loading, then the empty state", async () => {
    let answer: (r: Response) => void = () => {};
    fetchMock.mockReturnValueOnce(new Promise<Response>((r) => (answer = r)));
    renderScreen();
    expect(screen.getAllByTestId("skeleton-row")).toHaveLength(3);
    await act(async () => answer(Response.json({ items: [], total: 0, limit: 100 }, { headers: { etag: '"v0"' } })));
    expect(await screen.findByText("No verification codes yet")).toBeTruthy();
    expect(screen.getByText(/updates every 2 seconds/)).toBeTruthy();
    expect(screen.getByText("No codes yet")).toBeTruthy();
  });

  it("shows the newest code in the cards and copies a code with a check mark and a toast", async () => {
    fetchMock.mockResolvedValue(Response.json({ items: [code(2, "482913", 5), code(1, "KMJ-T04", 600)], total: 2, limit: 100 }, { headers: { etag: '"v2"' } }));
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    renderScreen();
    expect(await screen.findByRole("button", { name: "Copy code 482913" })).toBeTruthy();
    expect(screen.getAllByText("482913").length).toBeGreaterThanOrEqual(2); // card and table
    fireEvent.click(screen.getByRole("button", { name: "Copy code 482913" }));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith("482913"));
    expect(await screen.findByText("Code copied!")).toBeTruthy();
    expect(screen.getAllByTestId("copied-icon")).toHaveLength(1);
  });

  it("tells codes that arrived together apart by their service: the subject with its sender, or the sender alone", async () => {
    fetchMock.mockResolvedValue(
      Response.json(
        {
          items: [
            { ...code(3, "111111", 5), subject: "Your TikTok verification code", sender: "no-reply@tiktok.com" },
            { ...code(2, "222222", 5), subject: "", sender: "noreply@accounts.google.com" },
          ],
          total: 2,
          limit: 100,
        },
        { headers: { etag: '"v3"' } },
      ),
    );
    renderScreen();
    await screen.findByRole("button", { name: "Copy code 111111" });
    const header = screen.getByRole("columnheader", { name: "Service" });
    // Shown at every width: nothing hides the column or its cells below a breakpoint.
    expect(header.className).not.toMatch(/hidden/);
    const tiktok = screen.getByText("Your TikTok verification code");
    expect(tiktok.closest("td")!.className).not.toMatch(/hidden/);
    expect(screen.getByText("no-reply@tiktok.com")).toBeTruthy();
    expect(screen.getByText("noreply@accounts.google.com")).toBeTruthy();
  });

  it("tells an admin which inbox settings to fix, and asks nothing about them for a member", async () => {
    const warning = "CODES_SENDERS is not set, so mail from any sender is accepted";
    const urls: string[] = [];
    fetchMock.mockImplementation(async (input: RequestInfo | URL) => {
      const url = new Request(input).url;
      urls.push(url);
      return url.endsWith("/api/codes/setup")
        ? Response.json({ warnings: [warning] })
        : Response.json({ items: [], total: 0, limit: 100 }, { headers: { etag: '"v0"' } });
    });
    const { unmount } = renderScreen(admin());
    const notice = await screen.findByTestId("inbox-setup");
    expect(notice.textContent).toContain("The code inbox is not fully set up");
    expect(notice.textContent).toContain(warning);
    unmount();

    urls.length = 0;
    renderScreen(member());
    expect(await screen.findByText("No verification codes yet")).toBeTruthy();
    expect(urls.some((u) => u.endsWith("/api/codes/setup"))).toBe(false);
    expect(screen.queryByTestId("inbox-setup")).toBeNull();
  });

  it("sends the ETag back and keeps the list on 304", async () => {
    fetchMock.mockResolvedValueOnce(Response.json({ items: [code(1, "111222", 5)], total: 1, limit: 100 }, { headers: { etag: '"v1"' } }));
    fetchMock.mockResolvedValueOnce(new Response(null, { status: 304, headers: { etag: '"v1"' } }));
    renderScreen();
    expect(await screen.findByRole("button", { name: "Copy code 111222" })).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Refresh" }));
    expect(await screen.findByText("Refreshed")).toBeTruthy();
    const [, init] = fetchMock.mock.calls[1] as [RequestInfo, RequestInit];
    expect(new Headers(init.headers).get("if-none-match")).toBe('"v1"');
    expect(screen.getByRole("button", { name: "Copy code 111222" })).toBeTruthy();
  });
});
