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
  renderAt(entry);
}

/** The sign-in screen at `entry`, signed out; any other path shows where the screen went. */
function renderAt(entry: string) {
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

  it("after the password", async () => {
    signInAt(signInPathFor(LINK), { "/api/login": mia });
    await submitPassword();
    expect((await screen.findByTestId("landed")).textContent).toBe(LINK);
  });

  it("after the two-factor step", async () => {
    signInAt(signInPathFor(LINK), { "/api/login": { secondFactor: "required" }, "/api/login/second-factor": { ...mia, twoFactorEnabled: true } });
    await submitPassword();
    fireEvent.change(await screen.findByLabelText("Authentication code"), { target: { value: "123456" } });
    fireEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect((await screen.findByTestId("landed")).textContent).toBe(LINK);
  });

  it("home instead of another site", async () => {
    signInAt(`/auth?next=${encodeURIComponent("//evil.example/clicks")}`, { "/api/login": mia });
    await submitPassword();
    // A member without the dashboard lands on the codes inbox.
    expect((await screen.findByTestId("landed")).textContent).toBe("/codes");
  });
});

describe("the first admin on a deployment with a SETUP_TOKEN secret", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("asks for the setup token, says a wrong one under its field, and sends it with the account", async () => {
    const sent: unknown[] = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
        const path = new URL(String(input), "http://localhost").pathname;
        if (path === "/api/setup") return Response.json({ needsSetup: true, needsSetupToken: true });
        if (path === "/api/register") {
          const body = JSON.parse(String(init?.body)) as { setupToken?: string };
          sent.push(body);
          return body.setupToken === "the-right-token"
            ? Response.json({ ...mia, username: "founder", role: "admin" }, { status: 201 })
            : Response.json(
                { error: "Enter the setup token: the SETUP_TOKEN secret of this deployment", details: ["setupToken: The setup token is not right"] },
                { status: 403 },
              );
        }
        return Response.json({ error: "Not found" }, { status: 404 });
      }),
    );
    renderAt("/auth");
    fireEvent.change(await screen.findByLabelText("Username"), { target: { value: "founder" } });
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "founder-password" } });
    const create = screen.getByRole("button", { name: "Create admin account" });
    fireEvent.click(create);
    expect(await screen.findByText("Enter the setup token")).toBeTruthy();
    expect(sent).toHaveLength(0);

    fireEvent.change(screen.getByLabelText("Setup token"), { target: { value: "a-wrong-token" } });
    fireEvent.click(create);
    expect(await screen.findByText("The setup token is not right")).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Setup token"), { target: { value: "the-right-token" } });
    fireEvent.click(create);
    expect((await screen.findByTestId("landed")).textContent).toBe("/");
    expect(sent).toEqual([
      { username: "founder", password: "founder-password", setupToken: "a-wrong-token" },
      { username: "founder", password: "founder-password", setupToken: "the-right-token" },
    ]);
  });
});
