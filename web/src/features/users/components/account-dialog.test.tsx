import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ReauthDialogHost } from "@/components/reauth-dialog-host";
import { Toaster } from "@/components/ui/toast";
import { admin, renderWithUser } from "@/test/render";
import { AccountDialog } from "./account-dialog";

const target = {
  id: "00000000-0000-4000-8000-0000000000bb",
  username: "mia",
  role: "user" as const,
  createdAt: "2026-11-01T00:00:00.000Z",
  twoFactorEnabled: false,
  twoFactorEnabledAt: null,
  recoveryCodesLeft: 0,
};
const REFUSAL = { error: "Confirm it is you: enter your password (and code) again to change another user's sign-in or role", code: "reauth-needed" };

describe("an admin's change that needs a fresh re-authentication", () => {
  afterEach(() => vi.unstubAllGlobals());

  function serve(reauthAnswers: Response[]) {
    const calls: string[] = [];
    let reauthenticated = false;
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
        const path = new URL(String(input), "http://localhost").pathname;
        calls.push(`${init?.method ?? "GET"} ${path} ${String(init?.body ?? "")}`);
        if (path === "/api/account/reauth") {
          const res = reauthAnswers.shift()!;
          if (res.ok) reauthenticated = true;
          return res;
        }
        if (path === `/api/users/${target.id}/password`) return reauthenticated ? Response.json({ ok: true }) : Response.json(REFUSAL, { status: 403 });
        return Response.json([]);
      }),
    );
    renderWithUser(
      <>
        <AccountDialog user={target} onOpenChange={() => {}} />
        <ReauthDialogHost />
        <Toaster />
      </>,
      admin(),
    );
    return calls;
  }

  it("asks for the admin's password in a dialog, says a wrong one under the field, then sends the change again", async () => {
    const calls = serve([
      Response.json({ error: "Your current password is not right", details: ["password: Your current password is not right"] }, { status: 400 }),
      Response.json({ validUntil: "2026-11-25T23:00:00.000Z" }),
    ]);
    fireEvent.change(screen.getByLabelText(/New password/), { target: { value: "reset-by-admin-7" } });
    fireEvent.click(screen.getByRole("button", { name: "Set Password" }));

    const dialog = await screen.findByRole("dialog", { name: "Confirm it is you" });
    // No code asked: this admin has no two-factor sign-in.
    expect(within(dialog).queryByLabelText(/Code from your authenticator app/)).toBeNull();
    fireEvent.change(within(dialog).getByLabelText("Your password"), { target: { value: "wrong one" } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Confirm" }));
    expect(await within(dialog).findByText("Your current password is not right")).toBeTruthy();

    fireEvent.change(within(dialog).getByLabelText("Your password"), { target: { value: "correct horse battery" } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Confirm" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Confirm it is you" })).toBeNull());
    expect(await screen.findByText("Password set")).toBeTruthy();
    const passwordCalls = calls.filter((c) => c.includes("/password"));
    expect(passwordCalls).toHaveLength(2);
    expect(passwordCalls[1]).toContain('"password":"reset-by-admin-7"');
    expect(calls.filter((c) => c.includes("/api/account/reauth"))[1]).toContain('"password":"correct horse battery"');
  });

  it("cancelling the dialog leaves the change unmade and says so", async () => {
    const calls = serve([]);
    fireEvent.change(screen.getByLabelText(/New password/), { target: { value: "reset-by-admin-7" } });
    fireEvent.click(screen.getByRole("button", { name: "Set Password" }));
    const dialog = await screen.findByRole("dialog", { name: "Confirm it is you" });
    fireEvent.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(await screen.findByText("Failed to set password")).toBeTruthy();
    expect(calls.filter((c) => c.includes("/password"))).toHaveLength(1);
  });
});
