/**
 * Conversions sent to TikTok's Events API (admins): the settings, the send state for the data
 * sources panel, and 'Resend failed'.
 */
import { Hono } from "hono";
import { reportTimeZone } from "../db/queries/settings";
import { audit, diff, unlessUnchanged } from "../audit/record";
import { readEventSettings, readTestCodeSetting, requeueFailed, sendOverview, writeEventSettings } from "../db/queries/tiktok-events";
import { TIKTOK_SKIP_REASONS, type TikTokSkipReason } from "../db/schema";
import type { AppEnv } from "../env";
import { dayIn, dayStartMs } from "../lib/calendar-days";
import { ApiError } from "../lib/errors";
import { iso } from "../lib/time";
import { validate } from "../lib/validate";
import { tiktokEventSettingsSchema } from "../schemas/tiktok-events";
import { EVENTS_SETTINGS, settingsToFix } from "../sync/config";
import { enqueueSends } from "../tiktok-events/produce";
import { loadEventsSetup } from "../tiktok-events/setup";

export const tiktokEventsRoutes = new Hono<AppEnv>()
  /** Whether sending is set up, and what happened to the conversions today (report time zone). */
  .get("/", async (c) => {
    const db = c.get("db");
    const now = Date.now();
    const timeZone = await reportTimeZone(db);
    const day = dayIn(now, timeZone);
    const [{ settings, problems }, overview, testCode] = await Promise.all([
      loadEventsSetup(db, c.env),
      sendOverview(db, dayStartMs(day, timeZone)),
      readTestCodeSetting(db),
    ]);
    const skipped = Object.fromEntries(TIKTOK_SKIP_REASONS.map((r) => [r, 0])) as Record<TikTokSkipReason, number>;
    const today = { sent: 0, failed: 0, waiting: 0, skipped };
    for (const row of overview.today) {
      if (row.status === "sent") today.sent += row.count;
      else if (row.status === "failed") today.failed += row.count;
      else if (row.status === "skipped" && row.skipReason) skipped[row.skipReason] += row.count;
      else today.waiting += row.count;
    }
    const { failed } = overview;
    return c.json(
      {
        configured: problems.length === 0,
        problems,
        /** The Worker settings to set or correct, and where each lives (a secret, or a var). */
        fix: settingsToFix(EVENTS_SETTINGS, problems),
        tokenSet: Boolean(c.env.TIKTOK_EVENTS_ACCESS_TOKEN?.trim()),
        settings,
        /** Set: every event goes to Events Manager's Test Events, where it counts for nothing. */
        testEvents: testCode ? { code: testCode.code, setBy: testCode.by, setAt: testCode.at === null ? null : iso(testCode.at) } : null,
        day,
        today,
        failedTotal: failed.temporary + failed.setup + failed.refused,
        /** Failed rows by kind: 'Resend failed' sends the temporary and setup ones, never the refused. */
        failed,
        failures: overview.failures.map((f) => ({ ...f, at: iso(f.at) })),
      },
      200,
    );
  })

  .put("/settings", validate("json", tiktokEventSettingsSchema), async (c) => {
    const db = c.get("db");
    const value = c.req.valid("json");
    // Who set what is on record with the write (a test event code moves every conversion into
    // Test Events). A save of the same values records nothing.
    const labels = { pixelCode: "Pixel code", testEventCode: "Test event code", pendingEvent: "Pending conversions", currency: "Currency" };
    const change = diff(await readEventSettings(db), value, labels);
    const entry = unlessUnchanged(change, (summary) =>
      audit(c, { action: "setting.update", kind: "setting", id: "tiktok_events", summary: `Conversions to TikTok: ${summary}` }).getSQL(),
    );
    await writeEventSettings(db, value, c.get("user")?.username ?? "unknown", Date.now(), entry);
    return c.json(value, 200);
  })

  /**
   * The failed conversions that can succeed now back on the queue (after the token or pixel was
   * fixed, or TikTok's trouble passed); those TikTok refused as malformed stay failed.
   */
  .post("/resend", async (c) => {
    const db = c.get("db");
    const { problems } = await loadEventsSetup(db, c.env);
    if (problems.length) throw new ApiError(409, `Sending to TikTok is not configured (${problems.join("; ")}): nothing is resent until it is`);
    const ids = await requeueFailed(db, Date.now());
    if (ids.length) {
      await db.batch([
        audit(c, {
          action: "sync.tiktok_resend",
          kind: "sync",
          id: "tiktok_events",
          summary: `Resend failed: ${ids.length} conversions put back on the queue to TikTok`,
        }),
      ]);
    }
    // Should the enqueue fail, the rows are queued in D1 all the same and the cron's sweep sends them.
    const enqueued = await enqueueSends(c.env.TIKTOK_EVENTS_QUEUE, ids).then(
      () => true,
      (err: unknown) => (console.error("resend: enqueue failed", err), false),
    );
    return c.json({ requeued: ids.length, enqueued }, 200);
  });
