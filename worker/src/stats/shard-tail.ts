/**
 * The Stats report's live part of the shard-day objects' clicks
 * (docs/click-storage.md "The rollups and the reports"): what today's and yesterday's objects
 * hold past the click rollup's watermarks, so their newest clicks and exits show at once, as
 * D1's newest clicks do (read straight from `clicks` by db/queries/stats.ts). Each object counts
 * them with the rollup's own statements (`ClickShard.rollUp`, which reads and moves nothing),
 * grouped by the report's days in its time zone; here they are summed to what the report's
 * `our_clicks` needs: per campaign, ad campaign, the grouping's value and bot flag, over the
 * report's days. The legacy objects holding clicks of those days (D1's clicks of before the
 * switch, moved: tracking/click-move.ts) are asked too, for their new exits.
 *
 * What it leaves to the cron's rollup:
 * - Older days' objects: their exits (on clicks days old) are counted by the rollup, which asks
 *   each of them once a day, so they can show up to a day late. Asking every object of a 90-day
 *   range would be 1,440 calls a report.
 * - The minutes after a change of time zone: until the rollup is rebuilt for the new zone, the
 *   report reads the objects' counted clicks from no rollup either.
 *
 * A rollup step between this read and the report's statement can count a click twice or not at
 * all in that one answer (the two reads are not one statement, as in the Click Log's totals:
 * tracking/click-log.ts); the next refresh is right.
 */
import { archivedFrontier } from "../db/queries/click-archives";
import { readRollupState } from "../db/queries/click-rollup";
import { campaignNames } from "../db/queries/clicks";
import { shardRollupMarks } from "../db/queries/shard-rollup";
import { AUDIENCE_DIM_OF, CLICK_FIELD_OF, type ReportRange, type ShardTailRow } from "../db/queries/stats";
import type { Bindings, Db } from "../env";
import { offsetSpans } from "../lib/calendar-days";
import type { StatsGrouping } from "../schemas/stats";
import { clickDayOf, clickDayStart, LEGACY_DAY, shardName, type ClickPlace } from "../tracking/click-id";
import { legacySpans, readClickMove } from "../tracking/click-move";
import { shardPlacesOf } from "../tracking/click-log";

/** Clicks an object is asked to count past its watermark: far more than a quarter hour of its share of the peak. */
const TAIL_CHUNK = 1_000_000;

/** The live part of the objects of today and yesterday (UTC) within the range, summed; empty when none of the range's days has objects. */
export async function shardTail(
  db: Db,
  shards: Bindings["CLICK_SHARDS"],
  { range, groupBy }: { range: ReportRange; groupBy: StatsGrouping },
  now = Date.now(),
): Promise<ShardTailRow[]> {
  const today = clickDayOf(now);
  const startMs = Math.max(range.startMs, clickDayStart(today - 1));
  const endMs = Math.min(range.endMs, clickDayStart(today + 1));
  if (startMs >= endMs) return [];
  const places = await shardPlacesOf(db, startMs, endMs, now);
  if (!places.length) return [];
  const [state, marks, frontier, move] = await Promise.all([
    readRollupState(db),
    shardRollupMarks(db, places),
    archivedFrontier(db),
    places.some((place) => place.day === LEGACY_DAY) ? readClickMove(db) : null,
  ]);
  if (!state || state.timeZone !== range.timeZone) return [];
  // The legacy objects (tracking/click-move.ts) span the days of the clicks moved from D1, and count
  // as the rollup does: no click up to the move's point (D1 counted them), only their new exits.
  const spansOf = (place: ClickPlace) =>
    place.day === LEGACY_DAY
      ? legacySpans(move?.fromMs ?? startMs, move?.toMs ?? startMs, range.timeZone)
      : offsetSpans(clickDayStart(place.day), clickDayStart(place.day + 1), range.timeZone);

  const dim = AUDIENCE_DIM_OF[groupBy];
  const field = CLICK_FIELD_OF[groupBy];
  const inRange = (date: string) => date >= range.startDate && date <= range.endDate;
  const sums = new Map<string, ShardTailRow>();
  const add = (row: ShardTailRow) => {
    const key = JSON.stringify([row.c, row.t, row.g, row.b]);
    const sum = sums.get(key);
    if (sum) {
      sum.n += row.n;
      sum.x += row.x;
    } else sums.set(key, { ...row });
  };
  await Promise.all(
    places
      .filter((place) => place.day !== LEGACY_DAY || move)
      .map(async (place) => {
        const mark = marks.get(`${place.day}/${place.shard}`);
        const answer = await shards.getByName(shardName(place)).rollUp({
          clickWatermark: mark?.clickWatermark ?? 0,
          exitWatermark: mark?.exitWatermark ?? 0,
          toExit: now,
          chunk: TAIL_CHUNK,
          spans: spansOf(place),
          archived: frontier,
          ...(place.day === LEGACY_DAY && move ? { moved: { point: move.point } } : {}),
        });
        if (dim) {
          for (const r of answer.audience) {
            if (r.dim === dim && inRange(r.date)) add({ c: r.campaign_id, t: r.tiktok_campaign_id, g: r.value, b: r.bot, n: r.clicks, x: r.exits });
          }
        } else {
          for (const r of answer.daily) {
            if (inRange(r.date)) add({ c: r.campaign_id, t: r.tiktok_campaign_id, g: field ? r[field] : "", b: r.bot, n: r.clicks, x: r.exits });
          }
        }
      }),
  );
  // A campaign deleted since keeps its clicks in the objects; the report counts none of them.
  const rows = [...sums.values()];
  const kept = await campaignNames(
    db,
    rows.map((r) => r.c),
  );
  return rows.filter((r) => kept.has(r.c));
}
