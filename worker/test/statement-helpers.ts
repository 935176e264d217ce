/** Statements for the streaming tests: large, varied, and cut into pieces as a network would. */
import { mulberry32 } from "../src/distribution/random";

export const VARIED_HEADER = [
  "Registered Card Last 4",
  "Status",
  "Type",
  "Transaction Date",
  "Authorization Billing Amount",
  "Merchant Name",
  "Merchant City",
  "VCN Nickname",
  "VCN Last 4",
  "Reference Id",
];

/** The 23-digit reference id of row `i` under `prefix`. */
export const referenceId = (prefix: string, i: number) => `${prefix}${String(i).padStart(23 - prefix.length, "0")}`;

/**
 * A deterministic statement of `rows` data rows with every kind of row the import reads: quoted
 * commas, doubled quotes and line breaks inside quotes, text outside Latin-1 (and outside the
 * Basic Multilingual Plane), rows without a Reference Id, padded digits, positive refunds, blank
 * lines, invalid rows of each kind, and transactions listed again later with another status.
 */
export function variedStatement({ rows, prefix, linebreak = "\r\n", bom = true }: { rows: number; prefix: string; linebreak?: string; bom?: boolean }) {
  const lines = [VARIED_HEADER.join(",")];
  for (let i = 0; i < rows; i++) {
    const kind = i % 23;
    const day = (i % 28) + 1;
    const cents = 100 + ((i * 7919) % 250_000);
    const amount = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;
    let card = `*${["2375", "0042", "7781"][i % 3]}`;
    let status = ["CLEARED", "PENDING", "DECLINED", "CLEARED", "pending"][i % 5]!;
    let type = "DEBIT";
    let merchant = `ADS ${i % 40}`;
    let reference = referenceId(prefix, i);
    let value = amount;
    if (kind === 1) merchant = `"ACME, ""Q"" LLC ${i}"`;
    if (kind === 2) merchant = `"TWO${linebreak}LINES ${i % 7}"`;
    if (kind === 3) merchant = `\u0141\u00f3d\u017a \u20ac ${i % 9}`;
    if (kind === 4) merchant = `ROCKET \u{1F680} ${i % 5}`;
    if (kind === 5) reference = "";
    if (kind === 6) card = "42";
    if (kind === 7) [type, value] = ["CREDIT", "45.00"];
    if (kind === 8) status = "LOST";
    if (kind === 9) card = "";
    if (kind === 10) value = "12.345";
    if (kind === 11) reference = "2.40112E+22";
    // An earlier transaction again: another status (a repeat, possibly stale) or the same.
    if (kind === 12 && i > 40) [reference, status] = [referenceId(prefix, i - 37), "CLEARED"];
    if (kind === 13 && i > 40) [reference, status] = [referenceId(prefix, i - 40), "PENDING"];
    const row = [card, status, type, `3/${day}/25`, value, merchant, "Menlo Park", `Ads ${(i % 8) + 1}`, String(4100 + (i % 8)), reference];
    lines.push(row.join(","));
    if (kind === 14) lines.push("");
  }
  return `${bom ? "\uFEFF" : ""}${lines.join(linebreak)}${linebreak}`;
}

/** `whole` cut at random places into pieces of 1 to `max` units, a few of them a single unit. */
export function cut<T extends { length: number; slice(start: number, end?: number): T }>(whole: T, seed: number, max = 70_000): T[] {
  // Seeded, so a failing cut can be replayed.
  const next = mulberry32(seed);
  const pieces: T[] = [];
  for (let at = 0; at < whole.length;) {
    const size = next() < 0.2 ? 1 + Math.floor(next() * 3) : 1 + Math.floor(next() * max);
    pieces.push(whole.slice(at, at + size));
    at += size;
  }
  return pieces;
}
