// Benchmark: raw clicks written to a shard-day's SQLite Durable Object (worker/src/tracking/click-shard.ts)
// against the same clicks written to the one D1 as the clicks queue's consumer writes them today,
// in the same run (docs/click-storage.md "What a click costs, measured").
//
// One `wrangler dev` of scripts/bench/workers/shard-writes.js. BENCH_CLICKS (default 40,000) clicks
// of one day, with the values /r/ and the consumer store (TikTok's ad values and ttclid, the
// visitor's place and device), go in batches of 100 (a queue batch's share of one shard), 4 calls
// in flight, to:
//   1. D1 (insertClicksOnce, the consumer's write);
//   2. one shard-day object;
//   3. 16 shard-day objects, each batch to the next (a day's objects at the design's count).
// Prints clicks per second for each and the shard's against D1's, then the bytes per click the
// object reports (SQLite's pages, as Cloudflare bills them) and what a shard-day at the design's
// load comes to against the 10 GB an object may hold, then times, one call at a time, taking turns
// (p50, p99): a click's lookup by id (what an exit and a conversion do), LOOKUPS times against each
// store; and the Click Log's pages of the day (40 rows, newest first, each after the last), PAGES of
// them from D1 and from the 16 objects (each page asks all 16 and merges). Last it checks that
// writing a batch again stores nothing; and times, CLAIM_RUNS times each, the clicks of a hand-on
// batch of CLAIM_BATCH conversions read for TikTok's claims: from the 16 objects as the producer
// reads them (ids signed as /r/ signs them, one call per object), against the same columns of D1's
// clicks in one statement, and the ids' signature checks alone, which that read does not make
// (docs/click-storage.md "What a conversion keeps in D1").
// The load generator is this process (fetch): its CPU is printed.
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { benchDirs, campaignOn, fmt } from "../lib/click-bench.mjs";
import { median, pct } from "../lib/percentiles.mjs";
import { freePort, ROOT, startServer } from "../lib/server.mjs";

const COUNT = Number(process.env.BENCH_CLICKS ?? 40_000);
const BATCH = 100;
const IN_FLIGHT = 4;
const SHARDS = 16;
const LOOKUPS = 200;
const PAGES = 100;
/** Conversions a pull hands on to TikTok at once (worker/src/sync/cake-sync.ts HAND_ON_ROWS), and timed reads of their clicks. */
const CLAIM_BATCH = 5_000;
const CLAIM_RUNS = 20;
/** The design's load per shard-day: 33,300,000 clicks a day over 16 objects (docs/click-storage.md "The load"). */
const PER_SHARD_DAY = 33_300_000 / 16;
const OBJECT_LIMIT = 10e9;
const DAY = Math.floor((Date.UTC(2026, 10, 25) - Date.UTC(2020, 0, 1)) / 86_400_000);
const START = Date.UTC(2026, 10, 25);

const ENTRY = path.join(ROOT, "scripts", "bench", "workers", "shard-writes.js");
const { tmp, removeAll } = benchDirs("trackyard-bench-click-shard");

const hex = (n) => randomBytes(n).toString("hex");
/** A layout-1 id naming day DAY and `shard` (a shard-day refuses an id naming another), its other digits random. */
const uuid = (shard) => {
  const h = hex(16);
  const place = (DAY % 4096).toString(16).padStart(3, "0") + shard.toString(16).padStart(2, "0");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-81${h.slice(14, 16)}-8${place.slice(0, 3)}-${place.slice(3)}${h.slice(22, 32)}`;
};
const UA = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 musical_ly_34.1.0";

/** `count` clicks of one day, shaped as the consumer writes them, click i's id naming shard `shardOf(i)` (or `ids[i]`). */
function clicksFor(campaignId, count, shardOf = () => 0, ids = null) {
  return Array.from({ length: count }, (_, i) => ({
    clickId: ids ? ids[i] : uuid(shardOf(i)),
    campaignId,
    tiktokCampaignId: `17990000${i % 20}`,
    tiktokAdGroupId: `17991000${i % 40}`,
    tiktokCreativeId: `17992000${i % 80}`,
    placement: i % 2 ? "tiktok_feed" : "pangle",
    campaignName: `Spring sale ${i % 20}`,
    adGroupName: `Broad 18-34 ${i % 2}`,
    creativeName: `Video ${i % 4}`,
    ipAddress: `10.${i % 250}.${Math.floor(i / 250) % 250}.${Math.floor(i / 62500) % 250}`,
    userAgent: UA,
    clickedAt: START + Math.floor((i * 86_400_000) / count),
    ttclid: `E.C.P.${hex(16)}${hex(16)}${hex(10)}`,
    country: ["US", "PH", "GB", "BR"][i % 4],
    region: `Region ${i % 40}`,
    city: `City ${i % 300}`,
    asn: 7000 + (i % 500),
    asOrganization: `Carrier network ${i % 500}`,
    deviceType: i % 10 === 0 ? "desktop" : "mobile",
    os: i % 3 ? "iOS" : "Android",
    browser: i % 2 ? "TikTok" : "Mobile Safari",
    bot: i % 50 === 0,
  }));
}

async function post(url, rows) {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(rows) });
  if (!res.ok) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

/** Writes `rows` in batches, IN_FLIGHT calls at a time, batch i to `target(i)`; clicks per second and what was stored. */
async function writeAll(rows, target) {
  const batches = [];
  for (let i = 0; i < rows.length; i += BATCH) batches.push(rows.slice(i, i + BATCH));
  let next = 0;
  let written = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < batches.length) {
        const i = next++;
        const stored = await post(target(i), batches[i]);
        written += stored.written;
      }
    }),
  );
  return { perSecond: rows.length / ((performance.now() - started) / 1000), written, rows };
}

const server = await startServer({ port: await freePort(), stateDir: tmp("state"), stdio: "pipe", script: ENTRY });
const cpuBefore = process.cpuUsage();
let failed = false;
try {
  const { campaignId } = await campaignOn(server.url);
  const write = (query) => `${server.url}/__bench/write?${query}`;
  // Warm both paths (the object's first call creates its tables; D1's first write opens it).
  await post(write("to=d1"), clicksFor(campaignId, 10));
  await post(
    write(`to=shard&day=${DAY}&shard=99`),
    clicksFor(campaignId, 10, () => 99),
  );
  const empty = await (await fetch(`${server.url}/__bench/size?day=${DAY}&shard=98`)).json();

  console.log(`${fmt(COUNT)} clicks each, batches of ${BATCH}, ${IN_FLIGHT} calls in flight; ${os.cpus().length} cores`);
  const d1 = await writeAll(clicksFor(campaignId, COUNT), () => write("to=d1"));
  const one = await writeAll(clicksFor(campaignId, COUNT), () => write(`to=shard&day=${DAY}&shard=0`));
  const many = await writeAll(
    clicksFor(campaignId, COUNT, (i) => 1 + (Math.floor(i / BATCH) % SHARDS)),
    (i) => write(`to=shard&day=${DAY}&shard=${1 + (i % SHARDS)}`),
  );
  for (const [name, r] of [
    ["D1 (the consumer's write today)", d1],
    ["one shard-day object", one],
    [`${SHARDS} shard-day objects`, many],
  ]) {
    console.log(`  ${name.padEnd(34)} ${fmt(r.perSecond).padStart(7)} clicks/s (${fmt(r.perSecond / d1.perSecond, 2)}x D1), ${fmt(r.written)} stored`);
    if (r.written !== COUNT) failed = true;
  }

  const size = await (await fetch(`${server.url}/__bench/size?day=${DAY}&shard=0`)).json();
  const perClick = (size.bytes - empty.bytes) / size.clicks;
  const shardDay = perClick * PER_SHARD_DAY;
  console.log(
    `one object: ${fmt(size.clicks)} clicks in ${fmt(size.bytes / 1e6, 1)} MB (an empty one ${fmt(empty.bytes / 1e3)} KB): ${fmt(perClick)} bytes a click with its indexes; ` +
      `a shard-day at the design's ${fmt(PER_SHARD_DAY)} clicks is ${fmt(shardDay / 1e9, 2)} GB, ${fmt((shardDay / OBJECT_LIMIT) * 100)}% of an object's 10 GB`,
  );

  // A click's lookup by id, as an exit or a conversion makes it: stored clicks, a different one each call.
  const lookup = async (query, ids) => {
    const times = [];
    for (const id of ids) {
      const started = performance.now();
      const { found } = await (await fetch(`${server.url}/__bench/lookup?id=${id}&${query}`)).json();
      times.push(performance.now() - started);
      if (!found) failed = true;
    }
    return times;
  };
  const pick = (rows) => Array.from({ length: LOOKUPS }, (_, i) => rows[Math.floor((i * rows.length) / LOOKUPS)].clickId);
  const d1Ids = pick(d1.rows);
  const shardIds = pick(one.rows);
  // Warm each path once, then alternate, so a busy moment falls on both.
  await lookup("to=d1", d1Ids.slice(0, 1));
  await lookup(`to=shard&day=${DAY}&shard=0`, shardIds.slice(0, 1));
  const d1Times = [];
  const shardTimes = [];
  for (let i = 0; i < LOOKUPS; i++) {
    d1Times.push(...(await lookup("to=d1", [d1Ids[i]])));
    shardTimes.push(...(await lookup(`to=shard&day=${DAY}&shard=0`, [shardIds[i]])));
  }
  const ms = (xs) => `p50 ${fmt(median(xs), 1)} ms, p99 ${fmt(pct(xs, 99), 1)} ms`;
  console.log(
    `a click's lookup by id, ${LOOKUPS} each: D1 ${ms(d1Times)}; its shard-day object ${ms(shardTimes)} (${fmt(median(shardTimes) / median(d1Times), 2)}x D1 at p50)`,
  );

  // The day's Click Log, page after page: D1's one query against the 16 objects' merged answers.
  const pageTimes = { d1: [], shards: [] };
  const cursors = { d1: null, shards: null };
  const pageOf = async (store, query) => {
    const after = cursors[store] ? `&after=${encodeURIComponent(JSON.stringify(cursors[store]))}` : "";
    const started = performance.now();
    const page = await (await fetch(`${server.url}/__bench/page?day=${DAY}&${query}${after}`)).json();
    pageTimes[store].push(performance.now() - started);
    if (page.rows !== 40) failed = true;
    cursors[store] = page.next;
  };
  for (let i = 0; i < PAGES; i++) {
    await pageOf("d1", "to=d1");
    await pageOf("shards", `to=shards&from=1&count=${SHARDS}`);
  }
  console.log(
    `the day's Click Log, ${PAGES} pages of 40 each: D1 ${ms(pageTimes.d1)}; ${SHARDS} shard-day objects ${ms(pageTimes.shards)} ` +
      `(${fmt(median(pageTimes.shards) / median(pageTimes.d1), 2)}x D1 at p50)`,
  );

  // A hand-on batch's clicks read for TikTok's claims: signed ids over the 16 objects (as /r/ makes
  // them), against D1's clicks of the first run.
  await fetch(`${server.url}/__bench/shard-count?day=${DAY}&shards=${SHARDS + 1}`);
  const claimIds = [];
  for (let shard = 1; shard <= SHARDS; shard++) {
    // CLAIM_BATCH over the objects, the remainder one each to the first.
    const n = Math.floor(CLAIM_BATCH / SHARDS) + (shard <= CLAIM_BATCH % SHARDS ? 1 : 0);
    const ids = await (await fetch(`${server.url}/__bench/signed-ids?day=${DAY}&shard=${shard}&n=${n}`)).json();
    await post(
      write(`to=shard&day=${DAY}&shard=${shard}`),
      clicksFor(campaignId, n, () => shard, ids),
    );
    claimIds.push(...ids);
  }
  const d1ClaimIds = d1.rows.slice(0, CLAIM_BATCH).map((r) => r.clickId);
  const claimNow = START + 12 * 3_600_000;
  const claimTimes = { d1: [], shards: [], check: [] };
  for (let i = 0; i <= CLAIM_RUNS; i++) {
    for (const [store, ids] of [
      ["d1", d1ClaimIds],
      ["shards", claimIds],
      ["check", claimIds],
    ]) {
      const started = performance.now();
      const { found } = await post(`${server.url}/__bench/claim-reads?to=${store}&now=${claimNow}`, ids);
      // The first run of each warms it.
      if (i > 0) claimTimes[store].push(performance.now() - started);
      if (found !== CLAIM_BATCH) failed = true;
    }
  }
  console.log(
    `${fmt(CLAIM_BATCH)} conversions' clicks read for TikTok's claims, ${CLAIM_RUNS} times each: D1's clicks in one statement ${ms(claimTimes.d1)}; ` +
      `${SHARDS} objects as the producer reads them ${ms(claimTimes.shards)} (${fmt(median(claimTimes.shards) / median(claimTimes.d1), 2)}x D1 at p50); ` +
      `the 5,000 signature checks alone (what the copy for the attribution makes, and the claim skips) ${ms(claimTimes.check)}`,
  );

  // A message delivered again: the same batch stores nothing.
  const repeat = clicksFor(campaignId, BATCH);
  const firstTime = await post(write(`to=shard&day=${DAY}&shard=0`), repeat);
  const secondTime = await post(write(`to=shard&day=${DAY}&shard=0`), repeat);
  const onceEach = firstTime.written === BATCH && secondTime.written === 0 && secondTime.repeated === BATCH;
  console.log(
    `a batch written twice: ${firstTime.written} stored, then ${secondTime.written} stored and ${secondTime.repeated} repeats${onceEach ? "" : " (WRONG)"}`,
  );
  if (!onceEach) failed = true;
  const cpu = process.cpuUsage(cpuBefore);
  console.log(
    `load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}; this process's CPU ${fmt((cpu.user + cpu.system) / 1e6, 1)} s`,
  );
  console.log(
    failed
      ? "FAIL: a write stored a click twice or lost one, a lookup missed its click, a page came short, or a claim's read missed a click"
      : "PASS: every click stored once in each store, found by its id, every page full, and every claim's click read",
  );
  process.exitCode = failed ? 1 : 0;
} finally {
  await server.stop();
  removeAll();
}
