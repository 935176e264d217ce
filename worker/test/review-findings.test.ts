/**
 * The security review's findings, each pinned by a test that failed before its fix: an atomic
 * sign-in throttle, click counts and offers kept from members who should not read them, a code
 * inbox that fails closed, and a postback that HEAD cannot trigger.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MAX_FAILURES_PER_USERNAME } from "../src/auth/throttle";
import { cakeConversions, verificationCodes } from "../src/db/schema";
import worker from "../src/index";
import { bodyOf, call, client, db, makeAdmin, makeUser } from "./helpers";
import { POSTBACK_TOKEN, callWith, configuredEnv } from "./performance-helpers";

describe("sign-in throttle", () => {
  it("evaluates at most the limit of 40 wrong passwords sent at once for one user", async () => {
    const user = await makeUser();
    // Every password comparison is made slow, so all 40 requests are in flight together whatever
    // the machine's speed: a check-then-record throttle lets every one of them through.
    const derive = crypto.subtle.deriveBits.bind(crypto.subtle);
    const spy = vi.spyOn(crypto.subtle, "deriveBits").mockImplementation(async (...args: Parameters<SubtleCrypto["deriveBits"]>) => {
      await new Promise((r) => setTimeout(r, 50));
      return derive(...args);
    });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        call("/api/login", { json: { username: user.username, password: `wrong password ${i}` }, headers: { "cf-connecting-ip": `10.40.${i}.1` } }),
      ),
    );
    const evaluated = spy.mock.calls.length;
    spy.mockRestore();
    expect(evaluated).toBeLessThanOrEqual(MAX_FAILURES_PER_USERNAME);
    const statuses = answers.map((r) => r.status);
    // 401: the password was compared and was wrong; 429: refused before any comparison.
    expect(statuses.filter((s) => s === 401)).toHaveLength(evaluated);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    // The right password is refused too until the window passes.
    const right = await call("/api/login", { json: { username: user.username, password: user.password }, headers: { "cf-connecting-ip": "10.41.0.1" } });
    expect(right.status).toBe(429);
  }, 60_000);

  it("does not count a successful sign-in against the limit", async () => {
    const user = await makeUser();
    for (let i = 0; i < MAX_FAILURES_PER_USERNAME + 2; i++) {
      const res = await call("/api/login", { json: { username: user.username, password: user.password }, headers: { "cf-connecting-ip": "10.42.0.1" } });
      expect(res.status).toBe(200);
    }
  });
});

describe("GET /api/clicks/by-campaign", () => {
  it("is refused to a member with only the dashboard feature", async () => {
    const viewer = await makeUser("user", ["dashboard"]);
    const res = await call("/api/clicks/by-campaign", { cookie: viewer.cookie });
    expect(res.status).toBe(403);
  });
});

describe("GET /api/offers", () => {
  it("gives members only each offer's id and name, and admins the whole row", async () => {
    const admin = await makeAdmin();
    await call("/api/offers", { cookie: admin.cookie, json: { name: "Secret offer", url: "https://aff.test/?aff_id=991", utmTemplate: "sub1={clickId}" } });
    for (const feature of ["dashboard", "campaigns", "offers"] as const) {
      const member = await makeUser("user", [feature]);
      const rows = await bodyOf(await client(member).offers.$get(), 200);
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(Object.keys(row).sort()).toEqual(["id", "name"]);
    }
    const full = await bodyOf(await client(admin).offers.$get(), 200);
    expect(full.find((o) => o.name === "Secret offer")).toMatchObject({ url: "https://aff.test/?aff_id=991", utmTemplate: "sub1={clickId}" });
  });
});

describe("the code inbox's recipients", () => {
  let logs: string[];
  beforeEach(() => {
    logs = [];
    vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void logs.push(args.map(String).join(" ")));
  });
  afterEach(() => vi.restoreAllMocks());

  const mail = (messageId: string) =>
    [
      `From: Acme <no-reply@acme.example>`,
      `To: codes@inbox.test`,
      `Subject: Your code`,
      `Message-ID: ${messageId}`,
      "",
      "Your verification code is 604219.",
      "",
    ].join("\r\n");

  function message(raw: string, to = "codes@inbox.test", from = "forwarder@gmail.example") {
    const bytes = new TextEncoder().encode(raw);
    return {
      from,
      to,
      headers: new Headers(),
      raw: new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(bytes);
          c.close();
        },
      }),
      rawSize: bytes.byteLength,
      setReject: vi.fn<(reason: string) => void>(),
      forward: vi.fn(async () => ({ messageId: "unused" })),
      reply: vi.fn(async () => ({ messageId: "unused" })),
    } satisfies ForwardableEmailMessage;
  }

  async function deliver(msg: ForwardableEmailMessage, vars: Record<string, string>) {
    const ctx = createExecutionContext();
    await worker.email(msg, { ...env, ...vars }, ctx);
    await waitOnExecutionContext(ctx);
  }
  const stored = (messageId: string) => db().select().from(verificationCodes).where(eq(verificationCodes.messageId, messageId));

  it("rejects every message while CODES_RECIPIENTS is empty, and logs what to set", async () => {
    const id = `<${crypto.randomUUID()}@acme.example>`;
    const msg = message(mail(id));
    await deliver(msg, { CODES_RECIPIENTS: " " });
    expect(msg.setReject).toHaveBeenCalledOnce();
    expect(await stored(id)).toHaveLength(0);
    expect(logs.join("\n")).toMatch(/CODES_RECIPIENTS is empty.*set it to/);
  });

  it("accepts any recipient with *", async () => {
    const id = `<${crypto.randomUUID()}@acme.example>`;
    const msg = message(mail(id), "made-up@anything.test");
    await deliver(msg, { CODES_RECIPIENTS: "*" });
    expect(msg.setReject).not.toHaveBeenCalled();
    expect(await stored(id)).toHaveLength(1);
  });

  it("takes mail only from the forwarding mailboxes in CODES_SENDERS when it is set", async () => {
    const vars = { CODES_RECIPIENTS: "codes@inbox.test", CODES_SENDERS: "ads.team@gmail.example, @forward.example" };
    const refusedId = `<${crypto.randomUUID()}@acme.example>`;
    const refused = message(mail(refusedId), "codes@inbox.test", "stranger@elsewhere.example");
    await deliver(refused, vars);
    expect(refused.setReject).toHaveBeenCalledOnce();
    expect(refused.setReject.mock.calls[0]![0]).toMatch(/^Sender not accepted/);
    expect(await stored(refusedId)).toHaveLength(0);

    // Gmail's auto-forwarding writes the mailbox with a +caf_ tag; any address of a listed @domain passes.
    for (const from of ["ads.team+caf_=codes=inbox.test@gmail.example", "ADS.TEAM@gmail.example", "anyone@forward.example"]) {
      const id = `<${crypto.randomUUID()}@acme.example>`;
      const msg = message(mail(id), "codes@inbox.test", from);
      await deliver(msg, vars);
      expect(msg.setReject, from).not.toHaveBeenCalled();
      expect(await stored(id), from).toHaveLength(1);
    }
  });
});

describe("the CAKE postback", () => {
  it("counts nothing on a HEAD request", async () => {
    const leadid = `head-${crypto.randomUUID()}`;
    const q = new URLSearchParams({ token: POSTBACK_TOKEN, leadid, oid: "11", price: "4.00", s1: "head-mb" });
    const head = await callWith(configuredEnv(), `/postback/cake?${q}`, { method: "HEAD" });
    expect(head.status).toBe(405);
    expect(head.headers.get("allow")).toBe("GET");
    expect(await db().select().from(cakeConversions).where(eq(cakeConversions.conversionId, leadid))).toHaveLength(0);
    // The same URL with GET still counts.
    expect((await callWith(configuredEnv(), `/postback/cake?${q}`)).status).toBe(200);
    expect(await db().select().from(cakeConversions).where(eq(cakeConversions.conversionId, leadid))).toHaveLength(1);
  });
});
