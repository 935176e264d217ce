import { Hono } from "hono";
import { audit } from "../audit/record";
import { lastPostbackAt } from "../db/queries/cake";
import { readSettings } from "../db/queries/settings";
import { latestRuns, RUN_STALE_MS } from "../db/queries/sync-runs";
import { SYNC_SOURCES, type SyncSource } from "../db/schema";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { isoOrNull } from "../lib/time";
import { validate } from "../lib/validate";
import { syncRunSchema } from "../schemas/performance";
import { cakeSetup, postbackSetup, settingsToFix, syncDays, tiktokSetup } from "../sync/config";
import { outcomeJson, runSync, SOURCE_LABELS, type SyncDeps, type SyncOutcome } from "../sync/run-sync";

/** The postback URL to paste into CAKE; the token stays a placeholder (it is a secret). */
const postbackUrl = (origin: string) => `${origin}/postback/cake?token=YOUR_POSTBACK_TOKEN&leadid=#leadid#&oid=#oid#&price=#price#&s1=#s1#&s2=#s2#&s3=#s3#`;

/** One line per run for an error's details. */
function describe(o: SyncOutcome) {
  const label = SOURCE_LABELS[o.source];
  const days = o.windowStart ? ` (${o.windowStart} to ${o.windowEnd})` : "";
  if (o.status === "ok") return `${label}: ok, ${o.rowsFetched} rows fetched, ${o.rowsUpserted} rows written${days}`;
  return `${label}: ${o.status.replace("_", " ")}${o.error ? ` — ${o.error}` : ""}`;
}

export const syncRoutes = new Hono<AppEnv>()
  .get("/status", async (c) => {
    const db = c.get("db");
    const now = Date.now();
    const [runs, settings, postbackAt] = await Promise.all([latestRuns(db), readSettings(db), lastPostbackAt(db)]);
    const problems: Record<SyncSource, string[]> = {
      cake: cakeSetup(c.env, settings.report_timezone).problems,
      tiktok: tiktokSetup(c.env).problems,
    };
    const postback = postbackSetup(c.env);
    return c.json(
      {
        reportTimezone: settings.report_timezone,
        schedule: { everyMinutes: 15, ...syncDays(c.env) },
        sources: SYNC_SOURCES.map((source) => ({
          source,
          label: SOURCE_LABELS[source],
          configured: problems[source].length === 0,
          problems: problems[source],
          /** The settings to set or correct, and where each lives (a secret, or a var). */
          fix: settingsToFix(source, problems[source]),
          lastRun: runs[source].last ? outcomeJson(runs[source].last, now, RUN_STALE_MS) : null,
          lastSuccessAt: isoOrNull(runs[source].lastSuccessAt),
        })),
        postback: {
          configured: postback.problems.length === 0,
          problems: postback.problems,
          lastReceivedAt: isoOrNull(postbackAt),
          url: postbackUrl(new URL(c.req.url).origin),
        },
      },
      200,
    );
  })

  .post("/run", validate("json", syncRunSchema), async (c) => {
    const { source, days } = c.req.valid("json");
    const sources = source === "all" ? SYNC_SOURCES : [source];
    const deps: SyncDeps = {
      db: c.get("db"),
      env: c.env,
      alongside: (run) => [
        audit(c, {
          action: "sync.run",
          kind: "sync",
          id: run.source,
          summary: `${SOURCE_LABELS[run.source]} ${run.windowStart} to ${run.windowEnd}: ${run.status.replace("_", " ")}${run.status === "ok" ? `, ${run.rowsUpserted} rows written` : ""}`,
        }),
      ],
    };
    const runs = await Promise.all(sources.map((s) => runSync(deps, { source: s, trigger: "manual", days: days ?? syncDays(c.env).recent })));
    const now = Date.now();
    const outcomes = runs.map((run) => outcomeJson(run, now, RUN_STALE_MS));
    const failed = outcomes.filter((o) => o.status === "error");
    if (failed.length) {
      const message = failed.map((o) => `The ${SOURCE_LABELS[o.source]} sync failed: ${o.error}`).join(" ");
      throw new ApiError(502, message, outcomes.map(describe));
    }
    // Asking for one source that cannot run is a refusal; "all" reports each source's state.
    const [only] = outcomes;
    if (source !== "all" && only && (only.status === "not_configured" || only.status === "skipped")) {
      throw new ApiError(409, only.error ?? `${SOURCE_LABELS[only.source]} cannot run now`);
    }
    return c.json({ outcomes }, 200);
  });
