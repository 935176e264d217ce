import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../env";
import { settings } from "../schema";

/**
 * The clicks queue's consumer, as it last saw itself (docs/tracking.md "Clicks through a queue"):
 * one settings row (not a Settings-screen value), a JSON object whose fields are each set alone
 * (json_set), so a success and a failure recorded at once do not undo each other.
 */
export const CLICKS_PIPELINE_KEY = "clicks_pipeline";

const record = z
  .object({
    /** The last delivered batch the consumer stored, and its lag then (now − its oldest message's timestamp). */
    storedAt: z.number(),
    lagMs: z.number(),
    /** The last batch whose clicks failed to store (recorded only when D1 still took this write), and its oldest message's timestamp. */
    failedAt: z.number(),
    waitingSince: z.number(),
    /** When the backlog alert's check last found no delay: a later delay is a new occurrence. */
    calmAt: z.number(),
  })
  .partial();
export type ClicksPipelineRecord = z.infer<typeof record>;

export async function readClicksPipeline(db: Db): Promise<ClicksPipelineRecord> {
  const row = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, CLICKS_PIPELINE_KEY)).get();
  if (!row) return {};
  try {
    const parsed = record.safeParse(JSON.parse(row.value));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/** Sets fields of the record; `newerThan` keeps a slower, older write from putting back an older time. */
function setFields(db: Db, now: number, fields: [keyof ClicksPipelineRecord, number][], newerThan?: keyof ClicksPipelineRecord) {
  const object = sql.join(
    fields.map(([name, value]) => sql`${name}, ${value}`),
    sql`, `,
  );
  const paths = sql.join(
    fields.map(([name, value]) => sql`${`$.${name}`}, ${value}`),
    sql`, `,
  );
  const guard = newerThan ? sql`where coalesce(json_extract(${settings.value}, ${`$.${newerThan}`}), 0) <= ${now}` : sql``;
  return db.run(sql`
    insert into ${settings} (key, value, updated_at) values (${CLICKS_PIPELINE_KEY}, json_object(${object}), ${now})
    on conflict (key) do update set value = json_set(${settings.value}, ${paths}), updated_at = ${now} ${guard}`);
}

/** One write per delivered batch whose clicks were stored. */
export const recordClicksStored = (db: Db, now: number, lagMs: number) =>
  setFields(
    db,
    now,
    [
      ["storedAt", now],
      ["lagMs", lagMs],
    ],
    "storedAt",
  );

/** A batch whose clicks D1 refused: how long its oldest message has waited. */
export const recordClicksFailed = (db: Db, now: number, waitingSince: number) =>
  setFields(
    db,
    now,
    [
      ["failedAt", now],
      ["waitingSince", waitingSince],
    ],
    "failedAt",
  );

export const recordBacklogCalm = (db: Db, now: number) => setFields(db, now, [["calmAt", now]]);

/** Clicks answered in [from, to), counted up to `cap`: enough to tell clicks were flowing, no scan of a busy hour. */
export async function clicksAnsweredBetween(db: Db, from: number, to: number, cap = 10_000) {
  const [row] = await db.all<{ n: number }>(sql`
    select count(*) as n from (select 1 from clicks where clicked_at >= ${from} and clicked_at < ${to} limit ${cap})`);
  return row?.n ?? 0;
}
