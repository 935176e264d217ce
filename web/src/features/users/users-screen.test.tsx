import { fireEvent, screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { admin, renderWithUser } from "@/test/render";
import type { UserRow } from "./api";
import UsersScreen from "./users-screen";

const me = admin();
const ROWS: UserRow[] = [
  {
    id: me.id,
    username: me.username,
    role: "admin",
    createdAt: "2026-11-01T09:00:00.000Z",
    twoFactorEnabled: false,
    twoFactorEnabledAt: null,
    recoveryCodesLeft: 0,
  },
  {
    id: "00000000-0000-4000-8000-0000000000aa",
    username: "mia",
    role: "user",
    createdAt: "2026-11-02T09:00:00.000Z",
    twoFactorEnabled: true,
    twoFactorEnabledAt: "2026-11-20T10:00:00.000Z",
    recoveryCodesLeft: 7,
  },
  {
    id: "00000000-0000-4000-8000-0000000000bb",
    username: "noah",
    role: "user",
    createdAt: "2026-11-03T09:00:00.000Z",
    twoFactorEnabled: false,
    twoFactorEnabledAt: null,
    recoveryCodesLeft: 0,
  },
];

describe("Users screen", () => {
  beforeEach(() => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL) => {
        const path = new URL(String(input), "http://localhost").pathname;
        if (path === "/api/users") return Response.json(ROWS);
        if (path === "/api/users/two-factor-requirement") return Response.json({ required: false, configured: true });
        return Response.json({ error: "unexpected" }, { status: 500 });
      }),
    );
  });
  afterEach(() => vi.unstubAllGlobals());

  it("shows who has two-factor sign-in on, and its state in the account dialog", async () => {
    renderWithUser(
      <MemoryRouter>
        <UsersScreen />
      </MemoryRouter>,
      me,
    );
    const row = (name: string) => screen.getByText(name).closest("tr") as HTMLElement;
    await screen.findByText("mia");
    expect(screen.getByRole("columnheader", { name: "Two-Factor" })).toBeTruthy();
    expect(within(row("mia")).getByText("On")).toBeTruthy();
    expect(row("mia").textContent).toContain("since Nov 20, 2026");
    expect(within(row("noah")).getByText("Off")).toBeTruthy();
    // On a phone the column is hidden: the badge beside the role says it.
    expect(within(row("mia")).getByText("2FA").className).toContain("sm:hidden");
    expect(within(row("noah")).queryByText("2FA")).toBeNull();

    fireEvent.click(screen.getByRole("button", { name: "Account of mia" }));
    const dialog = await screen.findByRole("dialog");
    expect(dialog.textContent).toMatch(/since Nov 20, 2026; 7 recovery codes left\./);
    expect(within(dialog).getByRole("button", { name: "Reset Two-Factor…" })).toBeTruthy();
    fireEvent.click(within(dialog).getByRole("button", { name: "Close" }));

    fireEvent.click(screen.getByRole("button", { name: "Account of noah" }));
    const off = await screen.findByRole("dialog");
    expect(within(off).getByText(/signs in with the password alone/)).toBeTruthy();
    expect(within(off).queryByRole("button", { name: "Reset Two-Factor…" })).toBeNull();
  });
});
