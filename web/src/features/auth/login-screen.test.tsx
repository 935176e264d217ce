import { fireEvent, screen } from "@testing-library/react";
import { MemoryRouter, Route, Routes, useLocation } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { signInPathFor } from "@/lib/auth";
import { member, renderWithUser } from "@/test/render";
import LoginScreen from "./login-screen";

function Landed() {
  const { pathname, search, hash } = useLocation();
  return <p data-testid="landed">{pathname + search + hash}</p>;
}

const LINK = "/clicks?startDate=2026-11-19&endDate=2026-11-25&campaignId=3#log";
const mia = member(["clicks"]);

/** The sign-in screen at `entry`, signed out, with the API answering the sign-in calls. */
function signInAt(entry: string, answers: Record<string, unknown>) {
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL) => {
      const path = new URL(String(input), "http://localhost").pathname;
      if (path === "/api/setup") return Response.json({ needsSetup: false });
      return path in answers ? Response.json(answers[path]) : Response.json({ error: "Not found" }, { status: 404 });
    }),
  );
  renderWithUser(
    <MemoryRouter initialEntries={[entry]}>
      <Routes>
        <Route path="/auth" element={<LoginScreen />} />
        <Route path="*" element={<Landed />} />
      </Routes>
    </MemoryRouter>,
    null,
  );
}

async function submitPassword() {
  fireEvent.change(await screen.findByLabelText("Username"), { target: { value: "mia" } });
  fireEvent.change(screen.getByLabelText("Password"), { target: { value: "mia-password-1" } });
  fireEvent.click(screen.getByRole("button", { name: "Sign In" }));
}

describe("sign-in returns to the link that asked for it", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("after the password", { timeout: 15_000 }, async () => {
    signInAt(signInPathFor(LINK), { "/api/login": mia });
    await submitPassword();
    expect((await screen.findByTestId("landed")).textContent).toBe(LINK);
  });

  it("after the two-factor step", { timeout: 15_000 }, async () => {
    signInAt(signInPathFor(LINK), { "/api/login": { secondFactor: "required" }, "/api/login/second-factor": { ...mia, twoFactorEnabled: true } });
    await submitPassword();
    fireEvent.change(await screen.findByLabelText("Authentication code"), { target: { value: "123456" } });
    fireEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect((await screen.findByTestId("landed")).textContent).toBe(LINK);
  });

  it("home instead of another site", { timeout: 15_000 }, async () => {
    signInAt(`/auth?next=${encodeURIComponent("//evil.example/clicks")}`, { "/api/login": mia });
    await submitPassword();
    // A member without the dashboard lands on the codes inbox.
    expect((await screen.findByTestId("landed")).textContent).toBe("/codes");
  });
});
