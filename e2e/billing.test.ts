import { readFileSync } from "node:fs";
import path from "node:path";
import Papa from "papaparse";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { expect, test } from "vitest";
import { ROOT } from "../scripts/lib/server.mjs";
import { createFirstAdmin, useHarness } from "./support/harness";

const h = useHarness("billing");
/** Screens settle after a request or two: seconds on a loaded machine (harness.ts says how long Playwright's own waits allow). */
const POLL = { timeout: 30_000, interval: 100 };

// ---------------------------------------------------------------------------------------------
// What the sample export holds, read here from the file itself (not from Trackyard's parser), so
// every figure the screens must show is derived from the CSV rather than written down by hand.
// ---------------------------------------------------------------------------------------------
const SAMPLE = path.join(ROOT, "samples", "billing", "sample-statement.csv");
const text = readFileSync(SAMPLE, "utf8");
const parsed = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true });
if (parsed.errors.length) throw new Error(`The sample is not clean CSV: ${JSON.stringify(parsed.errors[0])}`);

const STATUSES = ["PENDING", "CLEARED", "DECLINED"];
/** Exact cents from the export's plain decimal text ("-45.00", "623.4"). */
const cents = (amount: string) => {
  const m = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(amount.trim());
  if (!m) throw new Error(`Unexpected amount in the sample: ${amount}`);
  const value = Number(m[2]) * 100 + Number((m[3] ?? "").padEnd(2, "0"));
  return m[1] ? -value : value;
};
const money = (c: number) => `${c < 0 ? "-" : ""}$${(Math.abs(c) / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
const isoDate = (mdy: string) => {
  const [m, d, y] = mdy.split("/").map(Number);
  return `${2000 + y!}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
};

interface SampleRow {
  line: number;
  status: string;
  cents: number;
  nickname: string;
  vcnLast4: string;
  date: string;
}
const valid: SampleRow[] = [];
const invalidLines: number[] = [];
// No quoted line breaks in the sample (checked below), so a row's file line is its index + 2.
parsed.data.forEach((r, i) => {
  const line = i + 2;
  const card = (r["Registered Card Last 4"] ?? "").trim();
  const status = (r["Status"] ?? "").trim().toUpperCase();
  // docs/product-rules.md: an empty card last 4 or an unknown status is a validation error.
  if (!card || !STATUSES.includes(status)) return invalidLines.push(line);
  valid.push({
    line,
    status,
    cents: cents(r["Authorization Billing Amount"]!),
    nickname: r["VCN Nickname"]?.trim() || "Unknown VCN",
    vcnLast4: r["VCN Last 4"]?.trim() ?? "",
    date: isoDate(r["Transaction Date"]!.trim()),
  });
});

const sum = (rows: SampleRow[]) => rows.reduce((s, r) => s + r.cents, 0);
const withStatus = (s: string) => valid.filter((r) => r.status === s);

/** The VCN Spend Summary as docs/screens.md defines it: PENDING + CLEARED per nickname, largest first. */
function vcnSummary(rows: SampleRow[]) {
  const groups = new Map<string, { n: number; c: number }>();
  for (const r of rows.filter((x) => x.status !== "DECLINED")) {
    const g = groups.get(r.nickname) ?? { n: 0, c: 0 };
    groups.set(r.nickname, { n: g.n + 1, c: g.c + r.cents });
  }
  const sorted = [...groups].sort((a, b) => b[1].c - a[1].c);
  return {
    rows: sorted.map(([name, g]) => [name, String(g.n), money(g.c)]),
    total: ["Total", String(sorted.reduce((s, [, g]) => s + g.n, 0)), money(sorted.reduce((s, [, g]) => s + g.c, 0))],
  };
}

// ---------------------------------------------------------------------------------------------
// Page helpers
// ---------------------------------------------------------------------------------------------

/**
 * Records every toast as it appears (title, description, time): only one toast shows at a time
 * and the first upload toast is replaced by 'Validation Warnings' after 500 ms, so the test reads
 * the record instead of racing the screen. A string, as it runs in the page (no DOM types here).
 */
const TOAST = '[role="region"][aria-label^="Notification"] li';
const TOAST_RECORDER = `
  window.__toasts = [];
  // When the page got the upload's answer: the app shows its toasts after that, so the warnings'
  // delay is measured from a moment before the timer started, however late the first toast renders.
  const send = window.fetch.bind(window);
  window.fetch = async (...args) => {
    const res = await send(...args);
    if (String(args[0] instanceof Request ? args[0].url : args[0]).includes("/api/transactions/upload")) window.__uploadAnsweredAt = performance.now();
    return res;
  };
  const seen = new WeakSet();
  new MutationObserver(() => {
    for (const li of document.querySelectorAll(${JSON.stringify(TOAST)})) {
      if (seen.has(li)) continue;
      seen.add(li);
      const [title, ...rest] = li.innerText.split("\\n");
      window.__toasts.push({ title: title.trim(), description: rest.join("\\n").trim(), at: performance.now() });
    }
  }).observe(document, { childList: true, subtree: true });
`;
interface RecordedToast {
  title: string;
  description: string;
  at: number;
}
// These run in the page (serialised, so no outer names): the recorder's list on the window.
type ToastWindow = { __toasts: RecordedToast[]; __uploadAnsweredAt?: number };
const clearToasts = (page: Page) => page.evaluate(() => void (globalThis as unknown as ToastWindow).__toasts.splice(0));
async function toastsUntil(page: Page, title: string): Promise<RecordedToast[]> {
  // Functions, not strings: the app's CSP forbids eval, which string predicates need.
  await page.waitForFunction((t) => (globalThis as unknown as ToastWindow).__toasts.some((x) => x.title === t), title);
  return page.evaluate(() => (globalThis as unknown as ToastWindow).__toasts);
}

async function signIn(page: Page, username: string, password: string) {
  await page.goto("/auth");
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign In" }).click();
  await page.getByRole("navigation", { name: "Main" }).waitFor();
}

/** A summary card's value and note, found by its label. */
async function statCard(page: Page, label: string) {
  const card = page
    .locator("main p")
    .filter({ hasText: new RegExp(`^${label}$`) })
    .locator("xpath=..");
  const [, value, note] = await card.locator("p").allTextContents();
  return { value, note };
}

const tableWith = (page: Page, header: string) => page.getByRole("table").filter({ has: page.getByRole("columnheader", { name: header, exact: true }) });

/** A table's body (or footer) cells, row by row. */
async function cells(section: Locator, width: number): Promise<string[][]> {
  const all = (await section.locator("td").allTextContents()).map((t) => t.trim());
  const rows: string[][] = [];
  for (let i = 0; i < all.length; i += width) rows.push(all.slice(i, i + width));
  return rows;
}

const summaryTable = (page: Page) => tableWith(page, "VCN Nickname");
const summaryRows = (page: Page) => cells(summaryTable(page).locator("tbody"), 3);
const summaryFooter = async (page: Page) => (await cells(summaryTable(page).locator("tfoot"), 3))[0];

const transactionsTable = (page: Page) => tableWith(page, "Merchant");
/**
 * Rows of the transactions table as [date, status, merchant, vcn, last4, amount]: the cells on
 * screen (each row also holds a cell only a phone's card shows).
 */
const transactionRows = (page: Page): Promise<string[][]> =>
  transactionsTable(page)
    .locator("tbody tr")
    .evaluateAll((rows) =>
      rows.map((tr) =>
        Array.from(tr.querySelectorAll("td"))
          .filter((td) => td.checkVisibility())
          .map((td) => (td.textContent ?? "").trim()),
      ),
    );
const showing = (page: Page) => page.getByText(/^Showing \d+-\d+ of [\d,]+ transactions$/);

async function choose(page: Page, label: string, option: string) {
  await page.getByLabel(label, { exact: true }).click();
  await page.getByRole("option", { name: option, exact: true }).click();
}

async function expectCards(page: Page, rows: SampleRow[]) {
  const spend = rows.filter((r) => r.status !== "DECLINED");
  await expect
    .poll(() => statCard(page, "Total Transactions"), POLL)
    .toEqual({
      value: String(spend.length),
      note: `${money(sum(spend))} pending and cleared`,
    });
  expect(await statCard(page, "Pending")).toEqual({ value: String(rows.filter((r) => r.status === "PENDING").length), note: "Awaiting clearance" });
  expect(await statCard(page, "Cleared")).toEqual({ value: String(rows.filter((r) => r.status === "CLEARED").length), note: "Completed" });
  expect(await statCard(page, "Declined")).toEqual({ value: String(rows.filter((r) => r.status === "DECLINED").length), note: "Failed transactions" });
}

/** A screenshot from the top of the page (sticky bars then sit where they belong). */
async function shot(page: Page, name: string) {
  await page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
  await h.shot(page, name);
}

const upload = (page: Page) => page.locator('input[type="file"]').setInputFiles(SAMPLE);

const ADMIN = { username: "ledger-admin", password: "ledger-admin-password" };
/** The first admin's browser profile: created in the first test, its session reused after. */
let adminCtx: BrowserContext;

// ---------------------------------------------------------------------------------------------

test("the sample export fits what this test needs", () => {
  expect(text.split("\r\n").filter(Boolean)).toHaveLength(parsed.data.length + 1); // no quoted line breaks
  expect(Object.keys(parsed.data[0]!)).toHaveLength(43);
  expect(valid.length).toBeGreaterThan(50);
  expect(invalidLines.length).toBeGreaterThanOrEqual(1);
  expect(invalidLines.length).toBeLessThanOrEqual(5);
  for (const s of STATUSES) expect(withStatus(s).length).toBeGreaterThan(0);
  expect(valid.some((r) => r.cents < 0)).toBe(true);
  expect(new Set(valid.map((r) => r.nickname)).size).toBeGreaterThanOrEqual(3);
});

test("an admin uploads a statement, reads the cards and summary, filters and pages, and re-uploads it", async () => {
  adminCtx = await h.newContext();
  await adminCtx.addInitScript(TOAST_RECORDER);
  const page = await adminCtx.newPage();

  // First run: create the first admin.
  await createFirstAdmin(page, ADMIN.username, ADMIN.password);

  // 1. The empty screen.
  await page.goto("/billing");
  // One header and one name: the screen is called what the sidebar calls it, and the signed-in
  // user and the one Logout are the sidebar's.
  await page.getByRole("heading", { level: 1, name: "Transactions" }).waitFor();
  await page.getByText(`Signed in as ${ADMIN.username}`).waitFor();
  expect(await page.getByRole("button", { name: "Logout" }).count()).toBe(1);
  await page.getByText("No transactions found. Upload a CSV file to get started.").waitFor();
  await page.getByText("No transaction data available").waitFor();
  await page.getByText("Upload your transaction CSV export to view and filter transactions").waitFor();
  expect(await showing(page).count()).toBe(0);
  await shot(page, "01-empty");

  // 2. Upload through the hidden input behind 'Choose CSV File'.
  const chooser = page.getByRole("button", { name: "Choose CSV File" });
  await chooser.waitFor();
  const [fileChooser] = await Promise.all([page.waitForEvent("filechooser"), chooser.click()]);
  expect(fileChooser.isMultiple()).toBe(false);
  expect(await page.locator('input[type="file"]').getAttribute("accept")).toContain(".csv");
  await clearToasts(page);
  await fileChooser.setFiles(SAMPLE);

  const cleared = withStatus("CLEARED").length;
  const pendingDeclined = withStatus("PENDING").length + withStatus("DECLINED").length;
  const warningLines = invalidLines.map((l) => `Line ${l}:`);
  let toasts = await toastsUntil(page, "Validation Warnings");
  const success = toasts.find((t) => t.title === "Upload successful!");
  expect(success?.description).toBe(
    `${valid.length} total transactions: ${cleared} new cleared, ${pendingDeclined} pending/declined, ${invalidLines.length} validation errors`,
  );
  const warnings = toasts.find((t) => t.title === "Validation Warnings")!;
  expect(warnings.description.split("\n").map((l) => l.replace(/:.*/, ":"))).toEqual(warningLines);
  // docs/screens.md §8 and §9: the warnings follow 500 ms later, replacing the first toast (one at a time).
  // Measured from the upload's answer, which comes before the toast that starts the timer: the
  // first toast's own insertion can be late on a loaded machine (362 ms before the warnings once).
  const answeredAt = await page.evaluate(() => (globalThis as unknown as ToastWindow).__uploadAnsweredAt);
  expect(answeredAt).toBeDefined();
  expect(success!.at).toBeLessThan(warnings.at);
  expect(warnings.at - answeredAt!).toBeGreaterThanOrEqual(500);
  expect(warnings.at - answeredAt!).toBeLessThan(2000);
  await page.locator(TOAST).filter({ hasText: "Validation Warnings" }).waitFor();
  expect(await page.locator(TOAST).count()).toBe(1);
  await page.getByRole("button", { name: "Choose CSV File" }).and(page.locator(":enabled")).waitFor();
  await shot(page, "02-uploaded-warnings");

  // 3. The four cards and the VCN Spend Summary, against the file.
  await expectCards(page, valid);
  const expectedSummary = vcnSummary(valid);
  await expect.poll(() => summaryRows(page), POLL).toEqual(expectedSummary.rows);
  expect(await summaryFooter(page)).toEqual(expectedSummary.total);
  expect(expectedSummary.rows.map((r) => r[0])).toContain("Unknown VCN");
  await shot(page, "03-cards-and-summary");

  // 4. The summary for a date range (inclusive), then a range with nothing in it.
  const [from, to] = ["2025-04-10", "2025-04-20"];
  await page.getByLabel("Start Date").fill(from);
  await page.getByLabel("End Date").fill(to);
  const inRange = vcnSummary(valid.filter((r) => r.date >= from && r.date <= to));
  expect(inRange.total).not.toEqual(expectedSummary.total);
  await expect.poll(() => summaryRows(page), POLL).toEqual(inRange.rows);
  expect(await summaryFooter(page)).toEqual(inRange.total);
  await shot(page, "04-summary-date-range");
  // An end before the start is refused on the spot, and the summary keeps its last figures.
  await page.getByLabel("Start Date").fill("2025-04-25");
  await page.getByText("End date must be on or after the start date").waitFor();
  expect(await summaryFooter(page)).toEqual(inRange.total);
  await shot(page, "05-summary-dates-reversed");
  await page.getByLabel("End Date").fill("2030-01-31");
  await page.getByLabel("Start Date").fill("2030-01-01");
  await page.getByText("Try adjusting the date range").waitFor();
  await page.getByText("No transaction data available").waitFor();
  await shot(page, "06-summary-empty-range");
  await page.getByRole("button", { name: "Clear Dates" }).click();
  await expect.poll(() => summaryRows(page), POLL).toEqual(expectedSummary.rows);
  expect(await page.getByRole("button", { name: "Clear Dates" }).count()).toBe(0);

  // 5. Filter by status: only declined rows, and the cards follow the filter.
  await expect.poll(async () => (await transactionRows(page)).length, POLL).toBe(50);
  await choose(page, "Status", "Declined");
  const declined = withStatus("DECLINED");
  await expect.poll(async () => (await transactionRows(page)).map((r) => r[1]), POLL).toEqual(declined.map(() => "DECLINED"));
  expect((await transactionRows(page)).map((r) => r[5]).sort()).toEqual(declined.map((r) => money(r.cents)).sort());
  expect(await statCard(page, "Declined")).toEqual({ value: String(declined.length), note: "Failed transactions" });
  expect(await showing(page).count()).toBe(0);
  await shot(page, "07-filter-declined");
  await page.getByRole("button", { name: "Clear", exact: true }).click();
  await expect.poll(async () => (await transactionRows(page)).length, POLL).toBe(50);

  // 6. Filter by VCN Last 4: only that card's rows (its nickname, all statuses).
  const google = valid.find((r) => r.nickname === "Google Search")!;
  const ofCard = valid.filter((r) => r.vcnLast4 === google.vcnLast4);
  await choose(page, "VCN Last 4", google.vcnLast4);
  await expect.poll(async () => (await transactionRows(page)).length, POLL).toBe(ofCard.length);
  const cardRows = await transactionRows(page);
  expect(new Set(cardRows.map((r) => `${r[3]} ${r[4]}`))).toEqual(new Set([`Google Search ${google.vcnLast4}`]));
  expect(cardRows.map((r) => r[5]).sort()).toEqual(ofCard.map((r) => money(r.cents)).sort());
  await expectCards(page, ofCard);
  await shot(page, "08-filter-vcn-last4");
  await page.getByRole("button", { name: "Clear", exact: true }).click();

  // 7. Pages of 50: page 2 shows the rest, and together they are every valid row.
  await showing(page).waitFor();
  expect(await showing(page).textContent()).toBe(`Showing 1-50 of ${valid.length} transactions`);
  const page1 = await transactionRows(page);
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByText(`Showing 51-${valid.length} of ${valid.length} transactions`).waitFor();
  await expect.poll(async () => (await transactionRows(page)).length, POLL).toBe(valid.length - 50);
  const page2 = await transactionRows(page);
  expect(await page.getByRole("button", { name: "Page 2" }).getAttribute("aria-current")).toBe("page");
  expect([...page1, ...page2].map((r) => r[5]).sort()).toEqual(valid.map((r) => money(r.cents)).sort());
  // Newest transaction date first across the pages.
  const dates = [...page1, ...page2].map((r) => Date.parse(r[0]!));
  expect(dates).toEqual([...dates].sort((a, b) => b - a));
  // Missing values show a dash: the physical-card row has no VCN.
  expect([...page1, ...page2].some((r) => r[3] === "—" && r[4] === "—")).toBe(true);
  await shot(page, "09-page-2");
  // A filter change sends the table back to page 1 (only the refund is below $0.00).
  await page.getByLabel("Min Amount ($)").fill("0");
  const nonNegative = valid.filter((r) => r.cents >= 0).length;
  await page.getByText(`Showing 1-50 of ${nonNegative} transactions`).waitFor();
  expect(await page.getByRole("button", { name: "Page 1" }).getAttribute("aria-current")).toBe("page");
  await page.getByRole("button", { name: "Clear", exact: true }).click();
  await page.getByText(`Showing 1-50 of ${valid.length} transactions`).waitFor();

  // 8. A file that is not an export is refused whole, with the reasons.
  await clearToasts(page);
  await page.locator('input[type="file"]').setInputFiles({
    name: "notes.csv",
    mimeType: "text/csv",
    buffer: Buffer.from("Date,Amount,Memo\r\n4/1/25,10.00,lunch\r\n"),
  });
  toasts = await toastsUntil(page, "Upload failed");
  expect(toasts[0]!.description.split("\n")).toEqual([
    "This file is not a transaction export: required columns are missing",
    "Missing column: Registered Card Last 4",
    "Missing column: Status",
    "Columns found: Date, Amount, Memo",
  ]);
  await page.locator(TOAST).filter({ hasText: "Upload failed" }).waitFor();
  await shot(page, "10-not-an-export");
  await expectCards(page, valid);

  // 9. The same file again, held at the network until the busy state has been seen: the button
  // reads 'Uploading...' and is disabled. Then nothing new: every valid row a duplicate.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/api/transactions/upload", async (route) => {
    await held;
    await route.continue();
  });
  await clearToasts(page);
  await upload(page);
  const busy = page.getByRole("button", { name: "Uploading..." });
  await busy.waitFor();
  expect(await busy.isDisabled()).toBe(true);
  release();
  await page.getByRole("button", { name: "Choose CSV File" }).and(page.locator(":enabled")).waitFor();
  await page.unroute("**/api/transactions/upload");
  toasts = await toastsUntil(page, "Validation Warnings");
  expect(toasts.map((t) => t.title)).toEqual(["Upload completed", "Validation Warnings"]);
  expect(toasts[0]!.description).toBe(`No new transactions. ${valid.length} duplicates skipped, ${invalidLines.length} validation errors`);
  await page.locator(TOAST).filter({ hasText: "Validation Warnings" }).waitFor();
  await expectCards(page, valid);
  expect(await summaryRows(page)).toEqual(expectedSummary.rows);
  expect(await showing(page).textContent()).toBe(`Showing 1-50 of ${valid.length} transactions`);
  await shot(page, "11-reupload");
  await page.close();
});

test("a member assigned one VCN sees only that card's transactions and no upload", async () => {
  const admin = await adminCtx.newPage();
  await admin.goto("/users");
  await admin.getByRole("button", { name: "Create New User" }).click();
  const create = admin.getByRole("dialog", { name: "Create New User" });
  await create.getByLabel("Username").fill("tia");
  await create.getByLabel("Password").fill("tia-password-1");
  await create.getByRole("button", { name: "Create User" }).click();
  await admin.getByRole("cell", { name: "tia", exact: true }).waitFor();
  await admin.getByRole("row", { name: /tia/ }).getByRole("button", { name: "Assign VCNs" }).click();
  const dialog = admin.getByRole("dialog", { name: /Assign VCNs/ });
  // Every nickname of the file is offered ('Unknown VCN' is not a nickname).
  const nicknames = [...new Set(valid.map((r) => r.nickname))].filter((n) => n !== "Unknown VCN");
  for (const n of nicknames) await dialog.getByRole("checkbox", { name: n, exact: true }).waitFor();
  await dialog.getByRole("checkbox", { name: "TikTok Ads - US", exact: true }).click();
  await shot(admin, "12-assign-vcns");
  await dialog.getByRole("button", { name: "Save" }).click();
  await admin.getByText("VCNs assigned").first().waitFor();
  await admin.close();

  const memberCtx = await h.newContext();
  const member = await memberCtx.newPage();
  await signIn(member, "tia", "tia-password-1");
  await member.goto("/billing");
  await member.getByText("Signed in as tia").waitFor();
  await member.getByText("You see the transactions of the cards an admin assigned to you: TikTok Ads - US.").waitFor();
  const tiktok = valid.filter((r) => r.nickname === "TikTok Ads - US");
  await expectCards(member, tiktok);
  await expect.poll(() => summaryRows(member), POLL).toEqual(vcnSummary(tiktok).rows);
  await expect.poll(async () => (await transactionRows(member)).length, POLL).toBe(tiktok.length);
  expect(new Set((await transactionRows(member)).map((r) => r[3]))).toEqual(new Set(["TikTok Ads - US"]));
  await member.getByLabel("VCN Last 4", { exact: true }).click();
  const tiktokLast4 = [...new Set(tiktok.map((r) => r.vcnLast4))];
  expect(await member.getByRole("option").allTextContents()).toEqual(["All cards", ...tiktokLast4]);
  await member.keyboard.press("Escape");
  expect(await showing(member).count()).toBe(0);
  expect(await member.getByText("Upload Billing Statement").count()).toBe(0);
  expect(await member.getByRole("button", { name: "Choose CSV File" }).count()).toBe(0);
  await shot(member, "13-member-billing");
  // The API agrees: no upload for members.
  const status = await member.evaluate(async () => (await fetch("/api/transactions/upload", { method: "POST", body: new FormData() })).status);
  expect(status).toBe(403);
  await memberCtx.close();
});

test("an admin creates, edits and deletes an invoice", async () => {
  const page = await adminCtx.newPage();
  await page.goto("/invoicing");
  await page.getByText("No invoices yet. Create your first invoice above.").waitFor();
  const today = new Date();
  const todayIso = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, "0")}-${String(today.getDate()).padStart(2, "0")}`;
  expect(await page.getByLabel("Invoice Date").inputValue()).toBe(todayIso);

  // The product's messages for an empty form.
  await page.getByRole("button", { name: "Create Invoice" }).click();
  for (const msg of ["Media buyer is required", "Amount paid is required", "Revenue share % is required", "Profit is required"]) {
    await page.getByText(msg).waitFor();
  }
  await shot(page, "14-invoice-validation");

  // Create.
  await page.getByLabel("Media Buyer").fill("jordan");
  await page.getByLabel("Invoice Date").fill("2025-04-30");
  await page.getByLabel("Amount Paid ($)").fill("1234.5");
  await page.getByLabel("Revenue Share (%)").fill("12.5");
  await page.getByLabel("Profit ($)").fill("-87.25");
  await page.getByLabel("Notes (optional)").fill("April, TikTok US");
  await page.getByRole("button", { name: "Create Invoice" }).click();
  await page.getByText("Invoice created successfully").first().waitFor();
  const history = tableWith(page, "Media Buyer");
  await expect
    .poll(() => cells(history.locator("tbody"), 7), POLL)
    .toEqual([["Apr 30, 2025", "jordan", "$1,234.50", "12.50%", "-$87.25", "April, TikTok US", ""]]);
  // The form is blank again, dated today.
  expect(await page.getByLabel("Media Buyer").inputValue()).toBe("");
  expect(await page.getByLabel("Invoice Date").inputValue()).toBe(todayIso);
  await shot(page, "15-invoice-created");

  // Edit: the form fills, 'Update Invoice' and Cancel appear.
  await page.getByRole("button", { name: "Edit invoice of jordan, Apr 30, 2025" }).click();
  await page.getByRole("button", { name: "Update Invoice" }).waitFor();
  await page.getByRole("button", { name: "Cancel" }).waitFor();
  expect(await page.getByLabel("Amount Paid ($)").inputValue()).toBe("1234.50");
  expect(await page.getByLabel("Profit ($)").inputValue()).toBe("-87.25");
  // Cancel leaves the invoice as it was and the form in create mode.
  await page.getByLabel("Amount Paid ($)").fill("9999");
  await page.getByRole("button", { name: "Cancel" }).click();
  await page.getByRole("button", { name: "Create Invoice" }).waitFor();
  expect(await page.getByLabel("Amount Paid ($)").inputValue()).toBe("");
  expect(await cells(history.locator("tbody"), 7)).toEqual([["Apr 30, 2025", "jordan", "$1,234.50", "12.50%", "-$87.25", "April, TikTok US", ""]]);
  await page.getByRole("button", { name: "Edit invoice of jordan, Apr 30, 2025" }).click();
  await page.getByRole("button", { name: "Update Invoice" }).waitFor();
  await page.getByLabel("Amount Paid ($)").fill("1300");
  await page.getByLabel("Revenue Share (%)").fill("15");
  await shot(page, "16-invoice-editing");
  await page.getByRole("button", { name: "Update Invoice" }).click();
  await page.getByText("Invoice updated successfully").first().waitFor();
  await expect
    .poll(() => cells(history.locator("tbody"), 7), POLL)
    .toEqual([["Apr 30, 2025", "jordan", "$1,300.00", "15.00%", "-$87.25", "April, TikTok US", ""]]);
  await page.getByRole("button", { name: "Create Invoice" }).waitFor();
  expect(await page.getByRole("button", { name: "Cancel" }).count()).toBe(0);
  await shot(page, "17-invoice-updated");

  // Delete, after the confirmation.
  await page.getByRole("button", { name: "Delete invoice of jordan, Apr 30, 2025" }).click();
  const confirm = page.getByRole("alertdialog");
  await confirm.getByText("Are you sure you want to delete this invoice?").waitFor();
  await shot(page, "18-invoice-delete-confirm");
  await confirm.getByRole("button", { name: "Delete invoice" }).click();
  await page.getByText("Invoice deleted successfully").first().waitFor();
  await page.getByText("No invoices yet. Create your first invoice above.").waitFor();
  expect(await page.evaluate(async () => (await (await fetch("/api/invoices")).json()) as unknown[])).toEqual([]);
  await shot(page, "19-invoice-deleted");
  await page.close();
});
