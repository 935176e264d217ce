// Writes samples/billing/sample-statement.csv: a month of a virtual-card provider's transaction
// export (Extend's 43-column layout, docs/integrations.md) to try the Billing screen with, and the file
// the browser test uploads (e2e/billing.test.ts). Deterministic: running it again gives the same
// bytes. `node scripts/make-sample-statement.mjs`
//
// What it holds: 84 transactions on three cards (one with a leading zero, *0042), five VCN
// nicknames plus a physical-card row without VCN columns ('Unknown VCN'), CLEARED / PENDING /
// DECLINED, a CREDIT refund, a merchant name with a comma (quoted), and 3 rows the import must
// refuse (no card last 4, an unknown status, no status) so the 'Validation Warnings' toast shows.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { EXTEND_EXPORT_HEADER as HEADER } from "./lib/extend-export.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const OUT = path.join(ROOT, "samples", "billing", "sample-statement.csv");

/** Each VCN: nickname, last 4, the card it draws on, its merchant, city, state. */
const VCNS = [
  { nickname: "Meta Ads - Main", last4: "4101", card: "2375", merchant: "FACEBK *ADS", city: "Menlo Park", state: "CA" },
  { nickname: "TikTok Ads - US", last4: "4102", card: "2375", merchant: "TIKTOK ADS, INC.", city: "Culver City", state: "CA" },
  { nickname: "Google Search", last4: "0417", card: "0042", merchant: "GOOGLE *ADS", city: "Mountain View", state: "CA" },
  { nickname: "Snap Ads", last4: "4104", card: "0042", merchant: "SNAP INC", city: "Santa Monica", state: "CA" },
  { nickname: "Native - Taboola", last4: "4105", card: "7781", merchant: "TABOOLA.COM", city: "New York", state: "NY" },
];

const quote = (v) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
const dollars = (cents) => `${cents < 0 ? "-" : ""}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, "0")}`;

/** A small deterministic generator (LCG), so amounts vary without a random seed. */
let seed = 20250401;
const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);

function row({ card, vcn, day, status, cents, type = "DEBIT", ref, physical = false, notes = "" }) {
  const amount = dollars(cents);
  const cleared = status === "CLEARED";
  const merchant = vcn ?? { merchant: "UPS STORE 4421", city: "Austin", state: "TX" };
  return [
    card === "" ? "" : `*${card}`,
    "Operating Account",
    physical ? "Physical Card" : "Virtual Card",
    `4/${day}/25`,
    cleared ? `4/${Math.min(day + 2, 30)}/25` : "",
    type,
    status,
    physical ? "Dana Lee" : "Sam Ortiz",
    physical ? "dana@trackyard.test" : "sam@trackyard.test",
    "USD",
    amount,
    "USD",
    "1",
    amount,
    cleared ? "USD" : "",
    cleared ? amount : "",
    cleared ? "USD" : "",
    cleared ? amount : "",
    cleared ? "1" : "",
    merchant.merchant,
    "",
    merchant.city,
    merchant.state,
    "US",
    "",
    physical ? "7399" : "7311",
    physical ? "Business Services" : "Advertising Services",
    physical ? "" : "Dana Lee",
    physical ? "" : "dana@trackyard.test",
    physical ? "" : vcn.nickname,
    physical ? "" : vcn.last4,
    ref,
    "Extend",
    "FALSE",
    "0",
    "",
    amount,
    notes,
    "",
    "",
    "",
    "",
    "Growth",
  ]
    .map(quote)
    .join(",");
}

const lines = [HEADER.join(",")];
let refNo = 0;
const ref = () => `2404${String(++refNo).padStart(19, "0")}`;

for (let i = 0; i < 80; i++) {
  const vcn = VCNS[i % VCNS.length];
  const day = 1 + Math.floor((i * 29) / 80);
  // Recent days still pending; about one in nine declined.
  const status = i % 9 === 4 ? "DECLINED" : day >= 27 ? "PENDING" : "CLEARED";
  const cents = 1500 + (next() % 120_000);
  lines.push(row({ card: vcn.card, vcn, day, status, cents, ref: ref() }));
  if (i === 20) {
    // A refund of an earlier Meta charge: CREDIT with a negative amount, lowering spend.
    lines.push(
      row({ card: "2375", vcn: VCNS[0], day: 9, status: "CLEARED", cents: -4500, type: "CREDIT", ref: ref(), notes: "Refund for a duplicate charge" }),
    );
  }
  if (i === 40) {
    // Invalid: the card last 4 is empty.
    lines.push(row({ card: "", vcn: VCNS[1], day: 15, status: "CLEARED", cents: 2200, ref: ref() }));
    // Invalid: a status the import does not know.
    lines.push(row({ card: "7781", vcn: VCNS[4], day: 15, status: "REVERSED", cents: 3100, ref: ref() }));
  }
  if (i === 60) {
    // A physical card: no VCN columns, and no Reference Id either.
    lines.push(row({ card: "7781", vcn: null, day: 21, status: "CLEARED", cents: 3849, ref: "", physical: true }));
    // Invalid: no status at all.
    lines.push(row({ card: "0042", vcn: VCNS[2], day: 22, status: "", cents: 990, ref: ref() }));
  }
}
// Two more pending at the end of the month, so PENDING shows on several cards.
lines.push(row({ card: "2375", vcn: VCNS[1], day: 30, status: "PENDING", cents: 15_000, ref: ref() }));
lines.push(row({ card: "0042", vcn: VCNS[3], day: 30, status: "PENDING", cents: 7_525, ref: ref() }));

mkdirSync(path.dirname(OUT), { recursive: true });
writeFileSync(OUT, `${lines.join("\r\n")}\r\n`);
console.log(`Wrote ${path.relative(ROOT, OUT)} (${lines.length - 1} rows)`);
