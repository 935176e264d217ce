import { fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { member, renderWithUser } from "@/test/render";
import { TwoFactorCard } from "./two-factor-card";

const CODES = Array.from({ length: 10 }, (_, i) => `aaaaa-0000${i}`);
const status = (enabled: boolean) => ({
  enabled,
  enabledAt: enabled ? "2026-11-25T16:23:05.000Z" : null,
  recoveryCodesLeft: enabled ? 10 : 0,
  requiredByAdmin: false,
  configured: true,
});

describe("the recovery codes, shown once", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("asks before Escape or the X closes them, since they will not be shown again", async () => {
    let enabled = false;
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL) => {
        const path = new URL(String(input), "http://localhost").pathname;
        if (path === "/api/account/two-factor/setup")
          return Response.json({ secret: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", uri: "otpauth://totp/Trackyard:mia?secret=JBSWY3DPEHPK3PXP" });
        if (path === "/api/account/two-factor/confirm") {
          enabled = true;
          return Response.json({ recoveryCodes: CODES });
        }
        if (path === "/api/account/two-factor") return Response.json(status(enabled));
        return Response.json(member());
      }),
    );
    renderWithUser(<TwoFactorCard required={false} />, member());
    fireEvent.click(await screen.findByRole("button", { name: "Set Up Two-Factor Sign-In" }));
    // The password first (docs/accounts-security.md "Accounts, roles and permissions").
    fireEvent.change(await screen.findByLabelText("Your password"), { target: { value: "correct horse battery" } });
    fireEvent.click(screen.getByRole("button", { name: "Continue" }));
    fireEvent.change(await screen.findByLabelText("Code from the app"), { target: { value: "123456" } });
    fireEvent.click(screen.getByRole("button", { name: "Turn On" }));
    const dialog = await screen.findByRole("dialog", { name: "Save your recovery codes" });

    // Escape asks; Cancel keeps the codes on screen.
    fireEvent.keyDown(dialog, { key: "Escape" });
    const ask = await screen.findByRole("alertdialog", { name: "Close without saving the codes?" });
    expect(ask.textContent).toContain("These recovery codes will not be shown again.");
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("alertdialog")).toBeNull());
    expect(screen.getByRole("dialog", { name: "Save your recovery codes" })).toBeTruthy();
    expect(screen.getByText(CODES[0]!)).toBeTruthy();

    // The X asks too; "Close anyway" closes both.
    fireEvent.click(screen.getByRole("button", { name: "Close" }));
    fireEvent.click(await screen.findByRole("button", { name: "Close anyway" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Save your recovery codes" })).toBeNull());
    expect(screen.queryByText(CODES[0]!)).toBeNull();
  });
});
