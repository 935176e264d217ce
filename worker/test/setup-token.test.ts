import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { auditLog } from "../src/db/schema";
import worker from "../src/index";
import { db, ORIGIN, sessionCookieFrom } from "./helpers";

const TOKEN = "setup-token-for-this-test-0123456789";

/** The Worker with a SETUP_TOKEN secret, as a deployment following the README's steps has. */
async function send(path: string, init: RequestInit = {}, bindings: Partial<typeof env> & { SETUP_TOKEN?: string } = { SETUP_TOKEN: TOKEN }) {
  const ctx = createExecutionContext();
  const headers = { "cf-connecting-ip": "10.91.0.1", ...(init.body ? { "content-type": "application/json", origin: ORIGIN } : {}) };
  const res = await worker.fetch(new Request(`${ORIGIN}${path}`, { ...init, headers }), { ...env, ...bindings }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}
const register = (body: object) => send("/api/register", { method: "POST", body: JSON.stringify(body) });

describe("the first admin with a SETUP_TOKEN secret", () => {
  it("is created only with the token; without it or with a wrong one nothing is created, and each refusal is audited", async () => {
    // This file's database starts empty: registration is open.
    expect(await (await send("/api/setup", {}, {})).json()).toEqual({ needsSetup: true, needsSetupToken: false });
    expect(await (await send("/api/setup")).json()).toEqual({ needsSetup: true, needsSetupToken: true });

    const none = await register({ username: "founder", password: "founder-password" });
    expect(none.status).toBe(403);
    expect(await none.json()).toEqual({
      error: "Enter the setup token: the SETUP_TOKEN secret of this deployment",
      details: ["setupToken: The setup token is not right"],
    });
    const wrong = await register({ username: "founder", password: "founder-password", setupToken: `${TOKEN}x` });
    expect(wrong.status).toBe(403);
    expect(await (await send("/api/setup")).json()).toMatchObject({ needsSetup: true });

    const right = await register({ username: "founder", password: "founder-password", setupToken: ` ${TOKEN} ` });
    expect(right.status, await right.clone().text()).toBe(201);
    expect(sessionCookieFrom(right)).toBeDefined();
    expect(await (await send("/api/setup")).json()).toEqual({ needsSetup: false, needsSetupToken: true });

    const entries = (await db().select().from(auditLog)).map((r) => `${r.action}: ${r.summary}`);
    expect(entries).toEqual(
      expect.arrayContaining([
        'session.setup_refused: First admin "founder" refused: no setup token',
        'session.setup_refused: First admin "founder" refused: wrong setup token',
        "session.sign_in: First admin account created",
      ]),
    );
    expect(entries.join("\n")).not.toContain(TOKEN);
  }, 30_000);
});
