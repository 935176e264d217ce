/**
 * Each UTC day's shard count (D1's `click_shard_days`): how many shard-day objects that day's
 * clicks are spread over (docs/click-storage.md "The click id that names its shard"). The cron
 * fixes today's and tomorrow's count from `CLICK_SHARDS_PER_DAY` before the day begins, and a
 * day's count never changes once set: every id of a day names one of that day's objects, and a
 * reader can refuse an id naming a shard the day did not have. A day without a row keeps its clicks
 * in D1 (`/r/` makes layout-0 ids), which is every day while the setting is 0, its default.
 *
 * `/r/` and `/click` read the counts through this isolate's memory, refreshed every 30 seconds,
 * as the tracking settings are (settings-cache.ts): one small D1 read per isolate and interval.
 */
import { and, eq, gte, isNull, or, sql } from "drizzle-orm";
import { clickShardDays } from "../db/schema";
import type { Db } from "../env";
import { clickDayOf, isKeptPlace, LEGACY_DAY, MAX_SHARDS, type ClickPlace } from "./click-id";

export const SHARD_DAYS_TTL_MS = 30_000;

/** The days a count is read for: the kept ones, at most the retention's longest (retention/config.ts). */
const READ_DAYS = 3651;

export type ShardCounts = ReadonlyMap<number, number>;

let cached: { value: ShardCounts; expiresAt: number } | null = null;

/** A day whose objects the retention has not emptied yet (retention/shard-days.ts): the days anything reads. */
const notEmptied = isNull(clickShardDays.emptiedAt);

/**
 * Every kept day's shard count, keyed by day (days since 2020-01-01). A day the retention has
 * archived and emptied has none: its ids name no stored click, and no range reads its objects.
 * The legacy objects, once the move of D1's clicks has started and until the retention empties
 * them, are LEGACY_DAY's (tracking/click-move.ts).
 */
export async function shardCounts(db: Db, now = Date.now()): Promise<ShardCounts> {
  if (cached && cached.expiresAt > now) return cached.value;
  const rows = await db
    .select({ day: clickShardDays.day, shards: clickShardDays.shards })
    .from(clickShardDays)
    .where(and(or(gte(clickShardDays.day, clickDayOf(now) - READ_DAYS), eq(clickShardDays.day, LEGACY_DAY)), notEmptied));
  const value = new Map(rows.map((r) => [r.day, r.shards]));
  cached = { value, expiresAt: now + SHARD_DAYS_TTL_MS };
  return value;
}

/** Forgets the counts read, so the next call reads them again (the cron after fixing a day, tests). */
export function forgetShardCounts() {
  cached = null;
}

/** Where a click answered at `at` is stored: a random shard of its day, or undefined when the day has no count (D1). */
export function placeForClick(counts: ShardCounts, at: number): ClickPlace | undefined {
  const day = clickDayOf(at);
  const shards = counts.get(day);
  if (!shards) return undefined;
  return { day, shard: Math.floor(Math.random() * shards) };
}

/**
 * Whether a layout-1 id's place can hold a click (click-id.ts `isKeptPlace`) under these counts.
 * Without them (D1 failing to give them) only the day is judged: an id that passed its check was
 * made by us, and its exit is kept by its object until the click comes.
 */
export const isStoredPlace = (counts: ShardCounts | null, place: ClickPlace, keptDays: number, now = Date.now()) =>
  isKeptPlace(place, clickDayOf(now), keptDays, (day) => (counts ? (counts.get(day) ?? 0) : MAX_SHARDS));

export interface ShardsPerDaySetting {
  shards: number;
  /** Why the configured value was not used, for a log line. */
  problem: string | null;
}

/** CLICK_SHARDS_PER_DAY as a count: unset or empty is 0 (clicks stay in D1), anything else 0 to 256. */
export function shardsPerDay(value: string | undefined): ShardsPerDaySetting {
  const raw = value?.trim() ?? "";
  if (raw === "") return { shards: 0, problem: null };
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (Number.isInteger(n) && n <= MAX_SHARDS) return { shards: n, problem: null };
  return {
    shards: 0,
    problem: `CLICK_SHARDS_PER_DAY is ${JSON.stringify(value)}, not a whole number from 0 to ${MAX_SHARDS}; new days keep their clicks in D1`,
  };
}

/**
 * Gives today and tomorrow a count when they have none: `shards` (0 sets none). A day's count is
 * never changed, so a run after the setting changed affects only days not fixed yet. Returns the
 * days fixed now.
 */
export async function fixShardDays(db: Db, shards: number, now: number): Promise<number[]> {
  if (shards <= 0) return [];
  const today = clickDayOf(now);
  const rows = await db
    .insert(clickShardDays)
    .values([today, today + 1].map((day) => ({ day, shards, createdAt: now })))
    .onConflictDoNothing()
    .returning({ day: clickShardDays.day });
  if (rows.length) forgetShardCounts();
  return rows.map((r) => r.day);
}

/** Whether the legacy objects hold, or are about to hold, D1's moved clicks. */
export const hasLegacy = (counts: ShardCounts | null) => (counts?.get(LEGACY_DAY) ?? 0) > 0;

/**
 * The days with a count from `fromDay` on that the retention has not emptied, oldest first: the
 * shard-days the rollup and the archive ask (never the legacy objects, which are no day's).
 */
export async function shardDaysFrom(db: Db, fromDay: number) {
  return db
    .select({ day: clickShardDays.day, shards: clickShardDays.shards })
    .from(clickShardDays)
    .where(and(gte(clickShardDays.day, Math.max(fromDay, 0)), notEmptied))
    .orderBy(sql`${clickShardDays.day}`);
}
