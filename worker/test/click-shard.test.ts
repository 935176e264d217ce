import { createExecutionContext, createMessageBatch, getQueueResult, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import {
  checkClickId,
  uncheckedClickId,
  clickDayOf,
  clickDayStart,
  dayOfDigits,
  isKeptPlace,
  MAX_SHARDS,
  newClickId,
  shardName,
  type ClickPlace,
} from "../src/tracking/click-id";
import type { ClickFilter, NewClick } from "../src/db/queries/clicks";
import { ensureTables, type ClickShard, type LogCursor } from "../src/tracking/click-shard";
import { pageAcrossShards } from "../src/tracking/click-shards";
import { CLICKS_QUEUE_NAME, consumeClicks, type ClickMessage } from "../src/tracking/click-queue";
import { clicks as d1Clicks } from "../src/db/schema";
import { inArray } from "drizzle-orm";
import { db } from "./helpers";

const DAY = clickDayOf(Date.UTC(2026, 10, 25));
let shards = 0;
/** A shard-day of its own for each test (the objects' storage lasts the file). */
const freshShard = () => env.CLICK_SHARDS.getByName(shardName({ day: DAY, shard: shards++ }));

const click = (clickId: string, over: Partial<NewClick> = {}): NewClick => ({
  clickId,
  campaignId: 7,
  clickedAt: clickDayStart(DAY) + 3_600_000,
  ipAddress: "198.51.100.7",
  userAgent: "Mozilla/5.0",
  placement: "feed",
  campaignName: "Spring",
  bot: false,
  ...over,
});
const exit = (clickId: string, at: number) => ({ clickId, offerId: 3, ipAddress: "198.51.100.7", userAgent: "Mozilla/5.0", at });

/** A column of every row of a shard's table, read inside the object. */
const column = (stub: DurableObjectStub<ClickShard>, query: string) => runInDurableObject(stub, (_shard, state) => state.storage.sql.exec(query).toArray());

describe("a shard-day of clicks (SQLite Durable Object)", () => {
  it("stores each click once however often its batch is written", async () => {
    const shard = freshShard();
    const rows = [click("a-1"), click("a-2", { bot: true, botReason: "datacenter" }), click("a-3", { campaignId: 8 })];
    expect(await shard.write(rows)).toEqual({ written: 3, repeated: 0, conflicts: [], misplaced: [], exitsApplied: 0 });
    expect(await shard.write(rows)).toEqual({ written: 0, repeated: 3, conflicts: [], misplaced: [], exitsApplied: 0 });
    expect(await shard.write([...rows.slice(1), click("a-4")])).toEqual({ written: 1, repeated: 2, conflicts: [], misplaced: [], exitsApplied: 0 });
    const size = await shard.size();
    expect(size).toMatchObject({ clicks: 4, exits: 0, pendingExits: 0 });
    expect(size.bytes).toBeGreaterThan(0);
    expect(await column(shard, "select click_id, bot, bot_reason from clicks order by click_id")).toEqual([
      { click_id: "a-1", bot: 0, bot_reason: null },
      { click_id: "a-2", bot: 1, bot_reason: "datacenter" },
      { click_id: "a-3", bot: 0, bot_reason: null },
      { click_id: "a-4", bot: 0, bot_reason: null },
    ]);
  });

  it("refuses a click whose id names another shard-day, where no lookup would look for it", async () => {
    const own = shards;
    const shard = freshShard();
    const here = await newClickId(env.SESSION_SECRET, { day: DAY, shard: own });
    const elsewhere = await newClickId(env.SESSION_SECRET, { day: DAY, shard: own + 1 });
    const otherDay = await newClickId(env.SESSION_SECRET, { day: DAY - 1, shard: own });
    expect(await shard.write([click(here), click(elsewhere), click(otherDay)])).toEqual({
      written: 1,
      repeated: 0,
      conflicts: [],
      misplaced: [elsewhere, otherDay],
      exitsApplied: 0,
    });
    expect((await shard.lookup([here, elsewhere, otherDay])).map((c) => c.clickId)).toEqual([here]);
  });

  it("counts a different click under a stored id as a conflict and keeps the first", async () => {
    const shard = freshShard();
    await shard.write([click("b-1")]);
    const other = click("b-1", { campaignId: 9, ipAddress: "203.0.113.5" });
    expect(await shard.write([other, click("b-2")])).toEqual({ written: 1, repeated: 0, conflicts: ["b-1"], misplaced: [], exitsApplied: 0 });
    expect((await shard.lookup(["b-1"]))[0]).toMatchObject({ clickId: "b-1", campaignId: 7 });
  });

  it("returns the click to its exit, records each exit once, and keeps the first recorded exit time (as D1)", async () => {
    const shard = freshShard();
    const at = clickDayStart(DAY) + 3_700_000;
    await shard.write([click("c-1", { offerId: 3, tiktokAdGroupId: "ag-1" })]);
    const first = await shard.recordExit(exit("c-1", at));
    expect(first).toEqual({
      click: expect.objectContaining({ clickId: "c-1", campaignId: 7, offerId: 3, tiktokAdGroupId: "ag-1", placement: "feed" }),
      recorded: true,
    });
    expect(await shard.recordExit(exit("c-1", at))).toMatchObject({ recorded: false });
    // An earlier exit delivered later (a retried message): a row of its own; the click's exit time
    // stays the one the rollup may have counted already.
    expect(await shard.recordExit(exit("c-1", at - 60_000))).toMatchObject({ recorded: true });
    expect(await column(shard, "select exited_at from clicks")).toEqual([{ exited_at: at }]);
    expect(await column(shard, "select at, offer_id from exits order by at")).toEqual([
      { at: at - 60_000, offer_id: 3 },
      { at, offer_id: 3 },
    ]);
  });

  it("keeps an exit that came before its click and applies it when the click is written, once", async () => {
    const shard = freshShard();
    const at = clickDayStart(DAY) + 3_650_000;
    expect(await shard.recordExit(exit("d-1", at))).toEqual({ click: null, pending: true });
    expect(await shard.recordExit(exit("d-1", at))).toEqual({ click: null, pending: true });
    expect(await shard.size()).toMatchObject({ clicks: 0, exits: 0, pendingExits: 1 });
    expect(await shard.write([click("d-1")])).toMatchObject({ written: 1, exitsApplied: 1 });
    expect(await shard.write([click("d-1")])).toMatchObject({ written: 0, repeated: 1, exitsApplied: 0 });
    expect(await shard.size()).toMatchObject({ clicks: 1, exits: 1, pendingExits: 0 });
    expect(await column(shard, "select exited_at from clicks")).toEqual([{ exited_at: at }]);
  });

  it("looks up only the stored ids", async () => {
    const shard = freshShard();
    await shard.write([click("e-1"), click("e-2")]);
    expect((await shard.lookup(["e-2", "e-9", "e-1"])).map((c) => c.clickId).sort()).toEqual(["e-1", "e-2"]);
    expect(await shard.lookup([])).toEqual([]);
    // More ids than a query may bind (100).
    const many = Array.from({ length: 300 }, (_, i) => `e-many-${i}`);
    await shard.write(many.map((id) => click(id)));
    expect(await shard.lookup([...many, "e-1"])).toHaveLength(301);
  });

  it("has D1's clicks table and indexes, and its exits keyed by click and time", async () => {
    const shard = freshShard();
    await shard.size();
    const columns = (rows: Record<string, unknown>[]) => rows.map((r) => [r.name, r.type, r.notnull, r.pk]);
    const info = `select name, type, "notnull", pk from pragma_table_info('clicks')`;
    expect(columns(await column(shard, info))).toEqual(columns((await env.DB.prepare(info).all<Record<string, unknown>>()).results));
    // Names, uniqueness and partial indexes (the exit time's holds only exited clicks) alike.
    const indexes = `select name, "unique", partial from pragma_index_list('clicks') where origin = 'c' order by name`;
    const d1Indexes = (await env.DB.prepare(indexes).all<Record<string, unknown>>()).results;
    expect(await column(shard, indexes)).toEqual(d1Indexes);
    expect(d1Indexes.length).toBeGreaterThan(2);
    expect(d1Indexes.some((i) => i.partial === 1)).toBe(true);
    for (const table of ["exits", "pending_exits"]) {
      expect(await column(shard, `select wr from pragma_table_list where name = '${table}'`)).toEqual([{ wr: 1 }]);
      expect(await column(shard, `select name, pk from pragma_table_info('${table}') where pk > 0 order by pk`)).toEqual([
        { name: "click_id", pk: 1 },
        { name: "at", pk: 2 },
      ]);
    }
  });
});

it("pages a day's clicks across its shard-days newest first, ties by click id, the filter applied", async () => {
  const places = [0, 1, 2].map(() => ({ day: DAY, shard: shards++ }));
  const base = clickDayStart(DAY) + 7_200_000;
  // 30 clicks over three objects, nine at each time (three in each object), so pages end inside a tie.
  const all = Array.from({ length: 30 }, (_, i) =>
    click(`g-${String(i).padStart(2, "0")}`, { clickedAt: base + Math.floor(i / 9) * 1000, campaignId: i % 3 === 0 ? 8 : 7 }),
  );
  await Promise.all(places.map((place, k) => env.CLICK_SHARDS.getByName(shardName(place)).write(all.filter((_, i) => i % 3 === k))));
  const newestFirst = [...all].sort((a, b) => b.clickedAt - a.clickedAt || (a.clickId < b.clickId ? 1 : -1));
  const walk = async (filter: ClickFilter, limit: number, on = places) => {
    const seen: string[] = [];
    let after: LogCursor | null = null;
    for (let pages = 0; pages < 40; pages++) {
      const page = await pageAcrossShards(env.CLICK_SHARDS, on, filter, after, limit);
      expect(page.rows.length).toBeLessThanOrEqual(limit);
      seen.push(...page.rows.map((r) => r.clickId));
      if (!page.next) return seen;
      after = page.next;
    }
    throw new Error("the pages did not end");
  };
  const day = { startMs: clickDayStart(DAY), endMs: clickDayStart(DAY + 1) };
  expect(await walk(day, 4)).toEqual(newestFirst.map((c) => c.clickId));
  expect(await walk(day, 30)).toEqual(newestFirst.map((c) => c.clickId));
  // One object, a click a page: each page ends inside a tie of that object's own.
  expect(await walk(day, 1, places.slice(0, 1))).toEqual(newestFirst.filter((c) => all.indexOf(c) % 3 === 0).map((c) => c.clickId));
  expect(await walk({ ...day, campaignId: 8 }, 3)).toEqual(newestFirst.filter((c) => c.campaignId === 8).map((c) => c.clickId));
  expect(await walk({ startMs: base + 1_000, endMs: base + 3_000 }, 4)).toEqual(
    newestFirst.filter((c) => c.clickedAt >= base + 1_000 && c.clickedAt < base + 3_000).map((c) => c.clickId),
  );
});

it("pages a range of days newest first, asking only the days a page needs", async () => {
  // Four days of two objects each (shard numbers of their own), the day before the newest empty.
  const first = shards;
  shards += 2;
  const placesOf = (day: number) => [0, 1].map((k) => ({ day, shard: first + k }));
  const places = [DAY - 3, DAY - 2, DAY - 1, DAY].flatMap(placesOf);
  const at = (day: number, hour: number) => clickDayStart(day) + hour * 3_600_000;
  const all = [
    ...[1, 2, 3, 4, 5].map((h) => click(`m-0-${h}`, { clickedAt: at(DAY, h) })),
    ...[6, 7, 8].map((h) => click(`m-2-${h}`, { clickedAt: at(DAY - 2, h) })),
    ...[9, 10].map((h) => click(`m-3-${h}`, { clickedAt: at(DAY - 3, h) })),
  ];
  const dayOfClick = (c: NewClick) => clickDayOf(c.clickedAt);
  await Promise.all(
    places.map((place) =>
      env.CLICK_SHARDS.getByName(shardName(place)).write(all.filter((c, i) => dayOfClick(c) === place.day && i % 2 === place.shard - first)),
    ),
  );
  // The objects each page asks, by day.
  let asked: number[] = [];
  const recording = {
    getByName: (name: string) => {
      asked.push(Number(name.split("/")[1]));
      return env.CLICK_SHARDS.getByName(name);
    },
  } as unknown as typeof env.CLICK_SHARDS;
  const range = { startMs: clickDayStart(DAY - 3), endMs: clickDayStart(DAY + 1) };
  const pages: { ids: string[]; days: number[] }[] = [];
  let after: LogCursor | null = null;
  for (let n = 0; n < 10; n++) {
    asked = [];
    const page = await pageAcrossShards(recording, places, range, after, 3);
    pages.push({ ids: page.rows.map((r) => r.clickId), days: [...new Set(asked)].sort() });
    if (!page.next) break;
    after = page.next;
  }
  const newestFirst = [...all].sort((a, b) => b.clickedAt - a.clickedAt).map((c) => c.clickId);
  expect(pages.flatMap((p) => p.ids)).toEqual(newestFirst);
  expect(pages.map((p) => p.days)).toEqual([
    // Three of the newest day's five clicks: that day alone.
    [DAY],
    // Its last two: that day, then the two before it (the empty one and the next), which fill the page.
    [DAY - 2, DAY - 1, DAY],
    // From the cursor's day down: no newer day is asked.
    [DAY - 3, DAY - 2],
    [DAY - 3],
  ]);
});

it("gives an object made by older code the columns clicks gained since, keeping its clicks", async () => {
  const shard = freshShard();
  await shard.write([click("f-1", { browser: "TikTok" })]);
  await runInDurableObject(shard, (_shard, state) => {
    state.storage.sql.exec("alter table clicks drop column browser");
    ensureTables(state.storage.sql);
  });
  expect(await column(shard, "select click_id, browser from clicks")).toEqual([{ click_id: "f-1", browser: null }]);
  expect(await shard.write([click("f-2", { browser: "Chrome" })])).toMatchObject({ written: 1 });
  expect(await column(shard, "select browser from clicks where click_id = 'f-2'")).toEqual([{ browser: "Chrome" }]);
});

describe("the clicks queue's consumer and shard-days", () => {
  const secret = env.SESSION_SECRET;
  const message = (id: string, body: ClickMessage, attempts = 1) => ({ id, timestamp: new Date(), attempts, body });
  const consume = async (...messages: ReturnType<typeof message>[]) => {
    const batch = createMessageBatch(CLICKS_QUEUE_NAME, messages);
    await consumeClicks(batch, env);
    return getQueueResult(batch, createExecutionContext());
  };

  it("writes a click whose id names a shard-day to that object, once however often it comes, and the others to D1", async () => {
    const place = { day: DAY, shard: 200 };
    const at = clickDayStart(DAY) + 3_600_000;
    const sharded = await Promise.all([0, 1, 2].map(async (i) => click(await newClickId(secret, place), { clickedAt: at + i })));
    const other = click(await newClickId(secret, { day: DAY, shard: 201 }), { clickedAt: at });
    const body: ClickMessage = { kind: "clicks", clicks: [...sharded, other] };
    expect((await consume(message("a", body), message("b", body))).explicitAcks.sort()).toEqual(["a", "b"]);
    expect((await consume(message("c", body, 2))).explicitAcks).toEqual(["c"]);
    const stub = env.CLICK_SHARDS.getByName(shardName(place));
    expect((await stub.lookup(sharded.map((c) => c.clickId))).map((c) => c.clickId).sort()).toEqual(sharded.map((c) => c.clickId).sort());
    expect(await stub.size()).toMatchObject({ clicks: 3 });
    expect(await env.CLICK_SHARDS.getByName(shardName({ day: DAY, shard: 201 })).size()).toMatchObject({ clicks: 1 });
    const inD1 = await db()
      .select()
      .from(d1Clicks)
      .where(
        inArray(
          d1Clicks.clickId,
          [...sharded, other].map((c) => c.clickId),
        ),
      );
    expect(inD1).toEqual([]);
  });

  it("gives an exit to its click's shard-day, which keeps it until the click comes", async () => {
    const place = { day: DAY, shard: 202 };
    const at = clickDayStart(DAY) + 3_600_000;
    const early = click(await newClickId(secret, place), { clickedAt: at });
    expect((await consume(message("exit", { kind: "exit", exit: exit(early.clickId, at + 5_000) }))).explicitAcks).toEqual(["exit"]);
    const stub = env.CLICK_SHARDS.getByName(shardName(place));
    expect(await stub.size()).toMatchObject({ clicks: 0, pendingExits: 1 });
    expect((await consume(message("click", { kind: "clicks", clicks: [early] }))).explicitAcks).toEqual(["click"]);
    expect(await stub.size()).toMatchObject({ clicks: 1, exits: 1, pendingExits: 0 });
  });

  it("records a delivery's exits with one call per object, in order, each once", async () => {
    const [one, two] = [
      { day: DAY, shard: 205 },
      { day: DAY, shard: 206 },
    ];
    const at = clickDayStart(DAY) + 3_600_000;
    const [a, b] = [click(await newClickId(secret, one), { clickedAt: at }), click(await newClickId(secret, two), { clickedAt: at })];
    const calls = vi.spyOn(env.CLICK_SHARDS, "getByName");
    const exits = [exit(a.clickId, at + 1_000), exit(b.clickId, at + 2_000), exit(a.clickId, at + 3_000), exit(a.clickId, at + 1_000)];
    expect((await consume(message("m", { kind: "clicks", clicks: [a, b], exits }))).explicitAcks).toEqual(["m"]);
    // Two objects: one call each for the clicks, one each for the exits.
    expect(calls.mock.calls.map(([name]) => name).sort()).toEqual([shardName(one), shardName(one), shardName(two), shardName(two)]);
    calls.mockRestore();
    expect(await column(env.CLICK_SHARDS.getByName(shardName(one)), "select at from exits order by at")).toEqual([{ at: at + 1_000 }, { at: at + 3_000 }]);
    expect(await column(env.CLICK_SHARDS.getByName(shardName(one)), "select exited_at from clicks")).toEqual([{ exited_at: at + 1_000 }]);
    expect(await env.CLICK_SHARDS.getByName(shardName(two)).size()).toMatchObject({ clicks: 1, exits: 1, pendingExits: 0 });
  });

  it("retries the batch when a shard-day fails, and stores it once when it answers", async () => {
    const place = { day: DAY, shard: 203 };
    const c = click(await newClickId(secret, place), { clickedAt: clickDayStart(DAY) + 3_600_000 });
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const real = env.CLICK_SHARDS.getByName.bind(env.CLICK_SHARDS);
    const down = vi.spyOn(env.CLICK_SHARDS, "getByName").mockImplementation((name) => {
      const stub = real(name);
      return new Proxy(stub, { get: (target, key) => (key === "write" ? () => Promise.reject(new Error("shard unavailable")) : Reflect.get(target, key)) });
    });
    const failed = await consume(message("m", { kind: "clicks", clicks: [c] }));
    expect(failed.retryMessages).toEqual([{ msgId: "m" }]);
    down.mockRestore();
    error.mockRestore();
    expect((await consume(message("m", { kind: "clicks", clicks: [c] }, 2))).explicitAcks).toEqual(["m"]);
    expect(await env.CLICK_SHARDS.getByName(shardName(place)).size()).toMatchObject({ clicks: 1 });
  });
});

describe("click ids that name their shard-day (layout 1)", () => {
  const secret = env.SESSION_SECRET;
  const now = clickDayStart(DAY) + 43_200_000;

  it("carry their day and shard through the check, and every older layout is still taken", async () => {
    for (const place of [
      { day: DAY, shard: 0 },
      { day: DAY, shard: MAX_SHARDS - 1 },
      { day: DAY + 1, shard: 15 },
      { day: DAY - 89, shard: 3 },
    ]) {
      const id = await newClickId(secret, place);
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-81[0-9a-f]{2}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(await checkClickId(secret, id.toUpperCase(), now)).toEqual({ clickId: id, kind: "sharded", place });
    }
    const layout0 = await newClickId(secret);
    expect(await checkClickId(secret, layout0, now)).toEqual({ clickId: layout0, kind: "current" });
    const v4 = crypto.randomUUID();
    expect(await checkClickId(secret, v4, now)).toEqual({ clickId: v4, kind: "legacy" });
  });

  it("refuse a forged day, shard or layout like any made-up id", async () => {
    const id = await newClickId(secret, { day: DAY, shard: 4 });
    const digits = id.replace(/-/g, "");
    const swap = (at: number) => {
      const d = digits.slice(0, at) + (digits[at] === "0" ? "1" : "0") + digits.slice(at + 1);
      return `${d.slice(0, 8)}-${d.slice(8, 12)}-${d.slice(12, 16)}-${d.slice(16, 20)}-${d.slice(20)}`;
    };
    // The day's digits (17-19), the shard's (20-21), the layout (13), a random digit (22), the check (31).
    for (const at of [17, 19, 20, 21, 13, 22, 31]) expect(await checkClickId(secret, swap(at), now)).toBeNull();
    expect(await checkClickId("another-secret-that-is-long-enough-to-use", id, now)).toBeNull();
    await expect(newClickId(secret, { day: DAY, shard: MAX_SHARDS })).rejects.toThrow(RangeError);
    await expect(newClickId(secret, { day: -1, shard: 0 })).rejects.toThrow(RangeError);
  });

  it("read without the check, name the place an id names and take any other of the right shape as old, for reads that find nothing under a forged id", async () => {
    const id = await newClickId(secret, { day: DAY, shard: 4 });
    expect(uncheckedClickId(id.toUpperCase(), now)).toEqual({ clickId: id, kind: "sharded", place: { day: DAY, shard: 4 } });
    // A forged check digit still names the place (the object then finds no click under it).
    const forged = `${id.slice(0, -1)}${id.endsWith("0") ? "1" : "0"}`;
    expect(await checkClickId(secret, forged, now)).toBeNull();
    expect(uncheckedClickId(forged, now)).toMatchObject({ kind: "sharded", place: { day: DAY, shard: 4 } });
    const v4 = crypto.randomUUID();
    expect(uncheckedClickId(v4, now)).toEqual({ clickId: v4, kind: "legacy" });
    for (const bad of ["", "not-a-click-id", `${id}0`]) expect(uncheckedClickId(bad, now)).toBeNull();
  });

  it("read the day as the newest one with those digits that is not after tomorrow", () => {
    expect(dayOfDigits(DAY % 4096, DAY)).toBe(DAY);
    expect(dayOfDigits((DAY + 1) % 4096, DAY)).toBe(DAY + 1);
    // Two days ahead is eleven years back, which no store keeps.
    expect(dayOfDigits((DAY + 2) % 4096, DAY)).toBe(DAY + 2 - 4096);
    expect(dayOfDigits((DAY - 90) % 4096, DAY)).toBe(DAY - 90);
    // Across the cycle's turn.
    expect(dayOfDigits(4095, 4096)).toBe(4095);
    expect(dayOfDigits(0, 4095)).toBe(4096);
  });

  it("name a place that is looked up only while its day is kept and its shard within that day's count", () => {
    const sixteen = () => 16;
    const kept = (place: ClickPlace) => isKeptPlace(place, DAY, 90, sixteen);
    expect(kept({ day: DAY, shard: 15 })).toBe(true);
    expect(kept({ day: DAY + 1, shard: 0 })).toBe(true);
    expect(kept({ day: DAY - 90, shard: 0 })).toBe(true);
    expect(kept({ day: DAY - 91, shard: 0 })).toBe(false);
    expect(kept({ day: DAY + 2, shard: 0 })).toBe(false);
    expect(kept({ day: DAY, shard: 16 })).toBe(false);
    // The count is the day's own: raised from tomorrow, yesterday's ids still name 16.
    const raised = (day: number) => (day > DAY ? 32 : 16);
    expect(isKeptPlace({ day: DAY + 1, shard: 20 }, DAY, 90, raised)).toBe(true);
    expect(isKeptPlace({ day: DAY - 1, shard: 20 }, DAY, 90, raised)).toBe(false);
  });
});
