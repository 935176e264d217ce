import { env } from "cloudflare:workers";
import { inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DEFAULT_RETENTION_HOURS, acceptedRecipients, retentionHours } from "../src/codes/config";
import { verificationCodes } from "../src/db/schema";
import { runScheduled } from "../src/jobs";
import { purgeOldCodes } from "../src/jobs/purge-codes";
import { db } from "./helpers";

const HOUR = 60 * 60 * 1000;

async function seedAges(hoursAgo: number[], now: number) {
  const rows = hoursAgo.map((h) => ({
    code: String(200000 + Math.round(h * 10)),
    subject: `${h} hours old`,
    sender: "a@x.example",
    messageId: `<${crypto.randomUUID()}@x.example>`,
    receivedAt: now - h * HOUR,
    extractedAt: now - h * HOUR,
  }));
  const inserted = await db().insert(verificationCodes).values(rows).returning({ id: verificationCodes.id });
  return inserted.map((r) => r.id);
}

const survivors = async (ids: number[]) =>
  (await db().select({ subject: verificationCodes.subject }).from(verificationCodes).where(inArray(verificationCodes.id, ids))).map((r) => r.subject).sort();

describe("code retention", () => {
  it("the cron deletes codes received more than 72 hours ago by default and keeps the rest", async () => {
    const now = Date.now();
    const ids = await seedAges([1, 71.9, 72.1, 500], now);
    const results = await runScheduled({ ...env, CODES_RETENTION_HOURS: "" }, now);
    expect(results.every((r) => r.status === "fulfilled")).toBe(true);
    expect(await survivors(ids)).toEqual(["1 hours old", "71.9 hours old"]);
  });

  it("follows CODES_RETENTION_HOURS", async () => {
    const now = Date.now();
    const ids = await seedAges([0.5, 3, 30], now);
    await purgeOldCodes.run({ db: db(), env: { ...env, CODES_RETENTION_HOURS: "2" }, now });
    expect(await survivors(ids)).toEqual(["0.5 hours old"]);
  });

  it.each(["abc", "-5", "0", "1e9", "Infinity"])("falls back to 72 hours for the invalid value %j", async (value) => {
    expect(retentionHours(value)).toBe(DEFAULT_RETENTION_HOURS);
    const now = Date.now();
    const ids = await seedAges([10, 80], now);
    await purgeOldCodes.run({ db: db(), env: { ...env, CODES_RETENTION_HOURS: value }, now });
    expect(await survivors(ids)).toEqual(["10 hours old"]);
  });

  it("reads the settings as configured", () => {
    expect(retentionHours(" 24 ")).toBe(24);
    expect(retentionHours("1.5")).toBe(1.5);
    expect(retentionHours(undefined)).toBe(DEFAULT_RETENTION_HOURS);
    // Empty takes no address (fails closed), * any, otherwise the listed ones without case.
    expect(acceptedRecipients("")).toEqual({ kind: "none" });
    expect(acceptedRecipients(" , ")).toEqual({ kind: "none" });
    expect(acceptedRecipients(" * ")).toEqual({ kind: "any" });
    expect(acceptedRecipients("Codes@Example.com, ops@example.com ,")).toEqual({ kind: "list", addresses: new Set(["codes@example.com", "ops@example.com"]) });
  });
});
