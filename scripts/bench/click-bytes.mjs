// Benchmark: what one raw click costs in storage and in billed rows
// (docs/click-storage.md "What a click costs, measured").
//
// BENCH_CLICKS (default 100,000) clicks of one day are generated into a fresh local D1 by the
// retention benchmarks' generator (scripts/lib/click-days.mjs: random UUID click ids as /r/ makes
// them, TikTok's ad values and ttclid, the visitor's place and device, 40% with an exit and its
// lander_clicks row), under today's schema (the migrations). Then:
//   1. D1's own size figure (meta.size_after) before and after;
//   2. with the database closed, the file itself: its page size and page count from the SQLite
//      header, and the pages of each table and index from SQLite's dbstat (the sqlite3 command);
//   3. the rows D1 reports written and read (meta.rows_written / rows_read, what D1 bills and what a
//      SQLite Durable Object bills alike) for one click's insert as the click writer does it, one
//      exit, the lookup of a click by id, and a click's delete with its exit;
//   4. the same clicks copied, in arrival order, into two other layouts a shard could use (the
//      click id as the primary key of a WITHOUT ROWID table; the exits keyed by click id and time),
//      measured the same way, with the rows an exit writes in the second;
//   5. what a converted click leaves in D1 beside its conversion (docs/click-storage.md
//      "What a conversion keeps in D1"): its copy in attributed_clicks with every column (as before)
//      and without the visitor's (as the copy is made now), and its TikTok send row as claimed
//      (queued, with the visitor's values the event needs) and as it stays once sent (without them).
//      Each is built fresh from the same clicks and measured by dbstat.
// Prints bytes per click for each, and what 90 days at 33,000,000 clicks a day come to. The sqlite3
// command (Debian's sqlite3 package) gives the per-table figures; without it only the totals print.
import { spawnSync } from "node:child_process";
import { mkdtempSync, openSync, readdirSync, readSync, closeSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { generateClicks, seedCampaigns } from "../lib/click-days.mjs";
import { openLocalD1 } from "../lib/local-d1.mjs";
import { applyMigrations } from "../lib/server.mjs";

const COUNT = Number(process.env.BENCH_CLICKS ?? 100_000);
/** The target: 1,000,000,000 clicks a month is about 33,000,000 a day (docs/click-storage.md). */
const TARGET_PER_DAY = 33_000_000;
const KEPT_DAYS = 90;
const GB = 1e9;
const START = Date.parse("2026-01-01T00:00:00Z");

const fmt = (n, d = 0) => Number(n).toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
const work = mkdtempSync(path.join(os.tmpdir(), "trackyard-bench-click-bytes-"));
const stateDir = path.join(work, "state");

/** The D1 database file (the one that is not Miniflare's own metadata). */
function databaseFile() {
  const dir = path.join(stateDir, "v3", "d1", "miniflare-D1DatabaseObject");
  const name = readdirSync(dir).find((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
  return path.join(dir, name);
}

/** Page size and page count from the file's 100-byte header (read with the database closed). */
function header(file) {
  const buf = Buffer.alloc(100);
  const fd = openSync(file, "r");
  readSync(fd, buf, 0, 100, 0);
  closeSync(fd);
  const raw = buf.readUInt16BE(16);
  return { pageSize: raw === 1 ? 65536 : raw, pages: buf.readUInt32BE(28), freePages: buf.readUInt32BE(36), bytes: statSync(file).size };
}

/** Bytes of each table and index (dbstat), or null without the sqlite3 command. */
function bytesByName(file) {
  const out = spawnSync("sqlite3", ["-readonly", file, "select name, sum(pgsize) from dbstat group by name"], { encoding: "utf8" });
  if (out.status !== 0) return null;
  return new Map(
    out.stdout
      .trim()
      .split("\n")
      .map((line) => [line.split("|")[0], Number(line.split("|")[1])]),
  );
}

/** Opens the database, runs `fn` with the D1 binding, closes it (so the file is whole on disk). */
async function withD1(fn) {
  const { mf, db } = openLocalD1(stateDir);
  try {
    return await fn(await db());
  } finally {
    await mf.dispose();
  }
}

applyMigrations(stateDir, { quiet: true });
const sizeBefore = await withD1(async (d1) => {
  await seedCampaigns(d1);
  return (await d1.prepare("select 1").run()).meta.size_after;
});
const file = databaseFile();
const before = { ...header(file), names: bytesByName(file) };

const t0 = performance.now();
const { sizeAfter, billed } = await withD1(async (d1) => {
  await generateClicks(d1, { start: START, firstId: 1, count: COUNT });
  const sizeAfter = (await d1.prepare("select 1").run()).meta.size_after;
  // One click as the click writer stores it (worker/src/db/queries/clicks.ts: every column from a
  // JSON tuple), then its exit (an update and a lander_clicks row, as recordExit), its lookup by id
  // (the exit, the postback, the Events API), and its delete with its exit (the retention).
  const source = await d1.prepare("select * from clicks where id = 2").first();
  const columns = Object.keys(source).filter((c) => c !== "id" && c !== "exited_at");
  const tuple = JSON.stringify([columns.map((c) => (c === "click_id" ? "aaaaaaaa-bbbb-8ccc-8ddd-eeeeeeeeeeee" : source[c]))]);
  const insert = await d1
    .prepare(`insert into clicks (${columns.join(", ")}) select ${columns.map((_, i) => `json_extract(value, '$[${i}]')`).join(", ")} from json_each(?1)`)
    .bind(tuple)
    .run();
  const id = "aaaaaaaa-bbbb-8ccc-8ddd-eeeeeeeeeeee";
  const [exitUpdate, exitRow] = await d1.batch([
    d1.prepare("update clicks set exited_at = ?2 where click_id = ?1 and exited_at is null").bind(id, START + 60_000),
    d1
      .prepare("insert into lander_clicks (click_id, offer_id, ip_address, user_agent, clicked_at) values (?1, 1, '10.0.0.1', 'Mozilla/5.0', ?2)")
      .bind(id, START + 60_000),
  ]);
  const lookup = await d1.prepare("select id, campaign_id, clicked_at, ttclid from clicks where click_id = ?1").bind(id).run();
  const [deleteExit, deleteClick] = await d1.batch([
    d1.prepare("delete from lander_clicks where click_id = ?1").bind(id),
    d1.prepare("delete from clicks where click_id = ?1").bind(id),
  ]);
  const m = (...rs) => ({ written: rs.reduce((n, r) => n + r.meta.rows_written, 0), read: rs.reduce((n, r) => n + r.meta.rows_read, 0) });
  return {
    sizeAfter,
    billed: {
      "a click stored": m(insert),
      "its exit recorded": m(exitUpdate, exitRow),
      "the click looked up by id": m(lookup),
      "the click and its exit deleted": m(deleteExit, deleteClick),
    },
  };
});
const after = { ...header(file), names: bytesByName(file) };
const generateSecs = (performance.now() - t0) / 1000;

// Two layouts a shard could use instead, filled from the same rows in the order they arrived:
// the clicks keyed by click id (WITHOUT ROWID: no rowid tree and no separate unique index, but
// every secondary index then carries the 36-character id instead of a rowid), and the exits keyed
// by click id and time (WITHOUT ROWID: one tree instead of lander_clicks' table and two indexes).
const keyed = ["keyed_clicks", "keyed_clicks_clicked_at_idx", "keyed_clicks_campaign_clicked_at_idx", "keyed_clicks_exited_at_idx"];
const { shardSize, shardExit } = await withD1(async (d1) => {
  const cols = `campaign_id, tiktok_campaign_id, tiktok_ad_group_id, tiktok_creative_id, placement, campaign_name, ad_group_name,
    creative_name, ip_address, user_agent, clicked_at, exited_at, ttclid, country, region, city, asn, as_organization, device_type,
    os, browser, bot, bot_reason, path_id, lander_id, offer_id`;
  await d1.batch([
    // The clicks table's columns and types (migrations), the click id as the key.
    d1.prepare(
      `create table keyed_clicks (click_id text primary key not null, campaign_id integer not null, tiktok_campaign_id text,
        tiktok_ad_group_id text, tiktok_creative_id text, placement text, campaign_name text, ad_group_name text, creative_name text,
        ip_address text, user_agent text, clicked_at integer not null, exited_at integer, ttclid text, country text, region text,
        city text, asn integer, as_organization text, device_type text, os text, browser text, bot integer not null default 0,
        bot_reason text, path_id integer, lander_id integer, offer_id integer) without rowid`,
    ),
    d1.prepare("create index keyed_clicks_clicked_at_idx on keyed_clicks (clicked_at)"),
    d1.prepare("create index keyed_clicks_campaign_clicked_at_idx on keyed_clicks (campaign_id, clicked_at)"),
    d1.prepare("create index keyed_clicks_exited_at_idx on keyed_clicks (exited_at) where exited_at is not null"),
    d1.prepare(
      `create table shard_exits (click_id text not null, clicked_at integer not null, offer_id integer, ip_address text, user_agent text,
        primary key (click_id, clicked_at)) without rowid`,
    ),
  ]);
  for (let from = 1; from <= COUNT; from += 20_000) {
    await d1
      .prepare(`insert into keyed_clicks (click_id, ${cols}) select click_id, ${cols} from clicks where id between ?1 and ?2 order by id`)
      .bind(from, from + 19_999)
      .run();
  }
  await d1.prepare("insert into shard_exits select click_id, clicked_at, offer_id, ip_address, user_agent from lander_clicks order by id").run();
  // An exit as a shard would record it: the click's exit time, and one row of shard_exits.
  const id = await d1.prepare("select click_id as id from clicks where exited_at is null limit 1").first("id");
  const [update, row] = await d1.batch([
    d1.prepare("update clicks set exited_at = ?2 where click_id = ?1 and exited_at is null").bind(id, START + 90_000),
    d1.prepare("insert into shard_exits values (?1, ?2, 1, '10.0.0.1', 'Mozilla/5.0')").bind(id, START + 90_000),
  ]);
  return {
    shardSize: (await d1.prepare("select 1").run()).meta.size_after,
    shardExit: { written: update.meta.rows_written + row.meta.rows_written, read: update.meta.rows_read + row.meta.rows_read },
  };
});
const shard = { ...header(file), names: bytesByName(file) };

// What a converted click leaves in D1 (docs/click-storage.md "What a conversion keeps in D1"). The
// visitor's columns are the ones worker/src/tracking/attributed-clicks.ts VISITOR_COLUMNS names.
const VISITOR = ["ip_address", "user_agent", "ttclid", "region", "city", "asn", "as_organization", "bot_reason"];
const COPY_COLUMNS = `click_id, campaign_id, tiktok_campaign_id, tiktok_ad_group_id, tiktok_creative_id, placement, campaign_name,
  ad_group_name, creative_name, ip_address, user_agent, clicked_at, exited_at, ttclid, country, region, city, asn, as_organization,
  device_type, os, browser, bot, bot_reason, path_id, lander_id, offer_id`;
const copyValues = (trimmed) =>
  COPY_COLUMNS.split(",")
    .map((c) => c.trim())
    .map((c) => (trimmed && VISITOR.includes(c) ? "null" : c))
    .join(", ");
/** A send row per click as the claim writes it (queued) or as it stays once sent. */
const sendValues = (sent) =>
  sent
    ? `'C' || (10000000 + id), 'CompletePayment', 'sent', click_id, null, null, null, null, 4250, 'USD', clicked_at + 600000, 1, clicked_at + 601000, clicked_at + 600000, clicked_at + 601000`
    : `'C' || (10000000 + id), 'CompletePayment', 'queued', click_id, ttclid, ip_address, user_agent, 'https://lander.test/lp', 4250, 'USD', clicked_at + 600000, 0, null, clicked_at + 600000, clicked_at + 600000`;
const copyFill = (trimmed) => `insert into attributed_clicks (${COPY_COLUMNS}) select ${copyValues(trimmed)} from clicks order by id`;
const sendFill = (sent) => `insert into tiktok_event_sends (conversion_id, event, status, click_id, ttclid, ip_address, user_agent, page_url,
  value_cents, currency, event_at, attempts, sent_at, created_at, updated_at) select ${sendValues(sent)} from clicks order by id`;
const conversionLayouts = {
  "a copy with every column (before)": { table: "attributed_clicks", fill: copyFill(false) },
  "a copy without the visitor's (now)": { table: "attributed_clicks", fill: copyFill(true) },
  "a send row as claimed (queued)": { table: "tiktok_event_sends", fill: sendFill(false) },
  "a send row once sent (now)": { table: "tiktok_event_sends", fill: sendFill(true) },
};
const conversionBytes = {};
for (const [label, { table, fill }] of Object.entries(conversionLayouts)) {
  await withD1(async (d1) => {
    await d1.prepare(`delete from ${table}`).run();
    await d1.prepare(fill).run();
  });
  const names = bytesByName(file);
  // The table and its indexes (dbstat names an index by its own name, a unique constraint's as sqlite_autoindex_<table>_N).
  conversionBytes[label] = names
    ? [...names]
        .filter(([name]) => name === table || name.startsWith(`${table}_`) || name.startsWith(`sqlite_autoindex_${table}_`))
        .reduce((n, [, b]) => n + b, 0)
    : null;
}

const perClick = (bytes) => bytes / COUNT;
const line = (label, bytes) => console.log(`  ${label.padEnd(46)} ${fmt(perClick(bytes), 1).padStart(7)} bytes a click`);
console.log(`${fmt(COUNT)} clicks of one day (40% with an exit), generated in ${generateSecs.toFixed(1)} s; page size ${after.pageSize} bytes`);
console.log(`D1's size figure (meta.size_after): ${fmt(sizeBefore)} -> ${fmt(sizeAfter)} bytes`);
console.log(
  `The file (header): ${fmt(before.pages)} -> ${fmt(after.pages)} pages (${fmt(after.freePages)} free), ${fmt(before.bytes)} -> ${fmt(after.bytes)} bytes`,
);
const todayBytes = (after.pages - before.pages) * after.pageSize;
line("today's schema, whole file (header)", todayBytes);
const day = (bytes) => (perClick(bytes) * TARGET_PER_DAY) / GB;
const atTarget = (label, bytes) => console.log(`  ${label}: ${day(bytes).toFixed(1)} GB a day, ${fmt(day(bytes) * KEPT_DAYS)} GB for ${KEPT_DAYS} days`);
if (after.names) {
  const grown = (name) => (after.names.get(name) ?? 0) - (before.names.get(name) ?? 0);
  // Every table and index that grew: the clicks table, its unique click id index and other
  // indexes, and lander_clicks (a row for each of the 40% that exit) with its indexes.
  const names = [...after.names.keys()].filter((n) => grown(n) > 0).sort();
  for (const name of names) line(`  ${name}`, grown(name));
  const clickBytes = names.filter((n) => n.startsWith("clicks")).reduce((n, name) => n + grown(name), 0);
  line(
    "clicks keyed by click id (WITHOUT ROWID)",
    keyed.reduce((n, name) => n + (shard.names.get(name) ?? 0), 0),
  );
  for (const name of keyed) line(`  ${name}`, shard.names.get(name) ?? 0);
  line("exits keyed by click id and time (WITHOUT ROWID)", shard.names.get("shard_exits") ?? 0);
  const shardBytes = clickBytes + (shard.names.get("shard_exits") ?? 0);
  line("a shard: clicks as today, exits keyed", shardBytes);
  console.log(`(the two layouts added ${fmt(shardSize - sizeAfter)} bytes to D1's size figure)`);
  console.log(`At ${fmt(TARGET_PER_DAY)} clicks a day:`);
  atTarget("today's schema", todayBytes);
  atTarget("a shard's layout", shardBytes);
} else {
  console.log("(no sqlite3 command: the per-table figures and the other layouts' are left out)");
  atTarget("today's schema", todayBytes);
}
if (after.names) {
  console.log("What a converted click leaves in D1 beside its conversion (each with its indexes):");
  for (const [label, bytes] of Object.entries(conversionBytes)) line(`  ${label}`, bytes);
  const copySaved = conversionBytes["a copy with every column (before)"] - conversionBytes["a copy without the visitor's (now)"];
  const sendSaved = conversionBytes["a send row as claimed (queued)"] - conversionBytes["a send row once sent (now)"];
  console.log(
    `  the visitor's values no longer kept: ${fmt(perClick(copySaved + sendSaved), 1)} bytes a converted click (copy ${fmt(perClick(copySaved), 1)}, send ${fmt(perClick(sendSaved), 1)})`,
  );
}
console.log("Rows D1 reports (what D1 and SQLite Durable Objects bill):");
for (const [label, { written, read }] of Object.entries({ ...billed, "an exit in a shard's layout": shardExit }))
  console.log(`  ${label.padEnd(34)} ${written} written, ${read} read`);
rmSync(work, { recursive: true, force: true });
// Miniflare leaves handles open; nothing else is running.
process.exit(0);
