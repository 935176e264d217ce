import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { forgetCodesVersion, VERSION_FRESH_MS } from "../src/codes/version";
import { verificationCodes } from "../src/db/schema";
import worker from "../src/index";
import { CODES_LIMIT } from "../src/routes/codes";
import { bodyOf, call, client, db, makeUser } from "./helpers";

const HOUR = 60 * 60 * 1000;

async function seed(count: number, newest = Date.now()) {
  const rows = Array.from({ length: count }, (_, i) => ({
    code: String(100000 + i),
    subject: `Code ${i}`,
    sender: "no-reply@acme.example",
    messageId: `<seed-${crypto.randomUUID()}@acme.example>`,
    // Inserted oldest last, so the order by received time differs from the order by id.
    receivedAt: newest - i * 1000,
    extractedAt: Date.now(),
  }));
  // D1 caps bound parameters per statement; insert in small slices.
  for (let i = 0; i < rows.length; i += 10)
    await db()
      .insert(verificationCodes)
      .values(rows.slice(i, i + 10));
  wroteElsewhere();
}

/**
 * The tests write to D1 directly, as another isolate would: such a write shows once this
 * isolate's remembered version is a second old. Forgetting it stands for that second passing;
 * one test below waits the second for real.
 */
const wroteElsewhere = () => forgetCodesVersion();

const list = (user: { cookie: string }, etag?: string) => client(user).codes.$get({}, { headers: etag ? { "if-none-match": etag } : {} });

beforeEach(async () => {
  await db().delete(verificationCodes);
  wroteElsewhere();
});

describe("GET /api/codes", () => {
  it("refuses anonymous callers with 401", async () => {
    const res = await call("/api/codes");
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: "You are not signed in" });
  });

  it("lists codes newest first with ISO times, never cacheable", async () => {
    const member = await makeUser();
    const now = Date.now();
    await db()
      .insert(verificationCodes)
      .values([
        { code: "111111", subject: "older", sender: "a@x.example", messageId: "<o@x>", receivedAt: now - 5 * HOUR, extractedAt: now - 5 * HOUR },
        { code: "333333", subject: "newest", sender: "c@x.example", messageId: "<n@x>", receivedAt: now - 1000, extractedAt: now },
        { code: "222222", subject: "middle", sender: "b@x.example", messageId: "<m@x>", receivedAt: now - HOUR, extractedAt: now - HOUR },
      ]);
    wroteElsewhere();
    const res = await list(member);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("etag")).toMatch(/^"codes-3-\d+-\d+"$/);
    const body = await bodyOf(res, 200);
    expect(body.total).toBe(3);
    expect(body.limit).toBe(CODES_LIMIT);
    expect(body.items.map((i) => i.code)).toEqual(["333333", "222222", "111111"]);
    expect(body.items[0]).toEqual({
      id: expect.any(Number),
      code: "333333",
      subject: "newest",
      sender: "c@x.example",
      receivedAt: new Date(now - 1000).toISOString(),
      extractedAt: new Date(now).toISOString(),
    });
  });

  it(`caps the list at ${CODES_LIMIT} and still counts every code`, async () => {
    const member = await makeUser();
    const newest = Date.now();
    await seed(CODES_LIMIT + 20, newest);
    const body = await bodyOf(await list(member), 200);
    expect(body.total).toBe(CODES_LIMIT + 20);
    expect(body.items).toHaveLength(CODES_LIMIT);
    expect(body.items[0]!.receivedAt).toBe(new Date(newest).toISOString());
    const times = body.items.map((i) => Date.parse(i.receivedAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it("answers 304 with no body while nothing changed, and 200 again after a new code", async () => {
    const member = await makeUser();
    await seed(3);
    const first = await list(member);
    const etag = first.headers.get("etag")!;

    const unchanged = await list(member, etag);
    expect(unchanged.status).toBe(304);
    expect(await unchanged.text()).toBe("");
    expect(unchanged.headers.get("etag")).toBe(etag);
    expect(unchanged.headers.get("cache-control")).toBe("no-store");
    // Weak and listed forms of the same tag match too.
    expect((await list(member, `W/${etag}`)).status).toBe(304);
    expect((await list(member, `"other", ${etag}`)).status).toBe(304);

    await seed(1);
    const changed = await list(member, etag);
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect((await bodyOf(changed, 200)).total).toBe(4);
  });

  it("changes the ETag when codes are deleted, even when a new one reuses the deleted id", async () => {
    const member = await makeUser();
    await seed(3);
    const before = (await list(member)).headers.get("etag")!;
    const [newest] = await db().select().from(verificationCodes).orderBy(verificationCodes.id).limit(1).offset(2);

    await db().delete(verificationCodes).where(eq(verificationCodes.id, newest!.id));
    wroteElsewhere();
    expect((await list(member, before)).status).toBe(200);

    // SQLite hands the deleted highest id to the next row: same count, same highest id.
    const { id: _id, ...deleted } = newest!;
    await db()
      .insert(verificationCodes)
      .values({ ...deleted, code: "999999", messageId: "<reused@x>", extractedAt: deleted.extractedAt + 1 });
    wroteElsewhere();
    const [reused] = await db().select().from(verificationCodes).where(eq(verificationCodes.messageId, "<reused@x>"));
    expect(reused!.id).toBe(newest!.id);
    const after = await list(member, before);
    expect((await bodyOf(after, 200)).items.map((i) => i.code)).toContain("999999");
  });

  it("sees a write made elsewhere within a second, without being told", async () => {
    const member = await makeUser();
    await seed(2);
    const etag = (await list(member)).headers.get("etag")!;
    await db().insert(verificationCodes).values({ code: "654321", subject: "s", sender: "a@x.example", receivedAt: Date.now(), extractedAt: Date.now() });
    await new Promise((resolve) => setTimeout(resolve, VERSION_FRESH_MS + 50));
    const res = await list(member, etag);
    expect((await bodyOf(res, 200)).items[0]!.code).toBe("654321");
  });

  it("shows a code delivered by email() on the very next poll", async () => {
    const member = await makeUser();
    const etag = (await list(member)).headers.get("etag")!;
    const raw = `From: Uber <noreply@uber.com>\r\nTo: codes@inbox.trackyard.test\r\nSubject: 4821 is your Uber code\r\nMessage-ID: <${crypto.randomUUID()}@uber.com>\r\nDate: ${new Date().toUTCString()}\r\n\r\nUse this code to sign in to Uber: 4821\r\n`;
    const bytes = new TextEncoder().encode(raw);
    const ctx = createExecutionContext();
    await worker.email(
      {
        from: "noreply@uber.com",
        to: "codes@inbox.trackyard.test",
        headers: new Headers(),
        raw: new Response(bytes).body!,
        rawSize: bytes.byteLength,
        setReject: () => {
          throw new Error("not expected");
        },
        forward: async () => ({ messageId: "unused" }),
        reply: async () => ({ messageId: "unused" }),
      },
      { ...env, CODES_RECIPIENTS: "codes@inbox.trackyard.test" },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    const res = await list(member, etag);
    const body = await bodyOf(res, 200);
    expect(body.items[0]).toMatchObject({ code: "4821", subject: "4821 is your Uber code", sender: "noreply@uber.com" });
  });
});

describe("GET /api/codes/setup", () => {
  /** The call with these inbox vars, as `user`. */
  async function setupWith(vars: { CODES_RECIPIENTS?: string; CODES_SENDERS?: string }, user: { cookie: string }) {
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request("https://trackyard.test/api/codes/setup", { headers: { cookie: user.cookie } }), { ...env, ...vars }, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  }

  it("tells admins what the deployed defaults let in or keep out, and nothing once the inbox is set", async () => {
    const admin = await makeUser("admin");
    // The test Worker runs with the deployed defaults: both empty.
    const { warnings } = await bodyOf(await client(admin).codes.setup.$get(), 200);
    expect(warnings).toEqual([
      "CODES_RECIPIENTS is empty: set it to the inbox addresses (comma-separated), or to * to accept any address; until then every message is rejected",
      "CODES_SENDERS is not set, so mail from any sender is accepted and anyone who learns the inbox address can plant a code: set it to the forwarding mailboxes (comma-separated, or @domain for a whole domain), or to * to accept any sender",
    ]);
    const cases: [{ CODES_RECIPIENTS?: string; CODES_SENDERS?: string }, number][] = [
      [{ CODES_RECIPIENTS: "codes@inbox.trackyard.test" }, 1],
      [{ CODES_RECIPIENTS: "codes@inbox.trackyard.test", CODES_SENDERS: "ads.team@gmail.example" }, 0],
      // What `npm start` writes into .dev.vars: any address and any sender, chosen.
      [{ CODES_RECIPIENTS: "*", CODES_SENDERS: "*" }, 0],
    ];
    for (const [vars, count] of cases) {
      const body = (await (await setupWith(vars, admin)).json()) as { warnings: string[] };
      expect(body.warnings, JSON.stringify(vars)).toHaveLength(count);
    }
  });

  it("is for admins only: members see the codes, not the inbox's settings", async () => {
    const member = await makeUser("user");
    expect((await client(member).codes.setup.$get()).status).toBe(403);
    expect((await list(member)).status).toBe(200);
  });
});
