// Points every citation of a document outside the repository at the one inside it that says the
// same in our words: the product's decisions (docs/product-rules.md), its screens, messages and
// maths by section (docs/screens.md §N), the external systems (docs/integrations.md), and the
// work items (the README section of the feature). Idempotent: a second run changes nothing.
// Prints each file it changed, and every citation it could not map (exit code 1 then).
//
//   node scripts/docs/retarget-citations.mjs           # rewrite in place
//   node scripts/docs/retarget-citations.mjs --check   # only report; exit 1 if anything is left
import { readFileSync, writeFileSync } from "node:fs";
import { citationFiles, outsideCitations } from "./citations.mjs";

/** The README section each work item's citation now points at. */
const ISSUE_SECTIONS = {
  4: "Verification codes",
  5: "Billing statements and invoicing",
  6: "Performance stats",
  12: "Conversions sent to TikTok",
};

/** [pattern, replacement] in order: the specific forms first. */
const RULES = [
  [/decisions\.md's import rules/g, 'the import rules of docs/product-rules.md "Billing import"'],
  [/\(decisions\.md is silent\)|decisions\.md is silent/g, "nothing else decides it"],
  [/decisions\.md,? "([^"]+)"/g, 'docs/product-rules.md "$1"'],
  [/decisions\.md, Billing import/g, 'docs/product-rules.md "Billing import"'],
  [/(?<![\w/])decisions\.md/g, "docs/product-rules.md"],
  [/(?:\/work\/)?(?<![\w/])shared\/docs\/integrations\.md/g, "docs/integrations.md"],
  [/(?<![\w/])integrations\.md/g, "docs/integrations.md"],
  [/[Ss]pec (§\d+)(?:\/§(\d+))?(?: "[^"]+")?/g, (_m, a, b) => `docs/screens.md ${a}${b ? ` and §${b}` : ""}`],
  [/the spec's table \((§\d+)\)/g, "the product's table (docs/screens.md $1)"],
  [/\(the spec says so\)/g, "(docs/screens.md §3)"],
  [/\b([Tt])he spec's\b/g, "$1he product's"],
  [/\bthe spec\b/g, "docs/screens.md"],
  [/\b[Ii]ssue (\d+)\b/g, (m, n) => (ISSUE_SECTIONS[n] ? `README "${ISSUE_SECTIONS[n]}"` : m)],
  [/\bthe issue's\b/g, "the target"],
];

const check = process.argv.includes("--check");
let changed = 0;
// docs/ is where citations point: its own links are relative and already inside the repository.
for (const file of citationFiles().filter((f) => !f.startsWith("docs/"))) {
  const before = readFileSync(file, "utf8");
  let after = before;
  for (const [pattern, replacement] of RULES) after = after.replace(pattern, replacement);
  if (after !== before) {
    changed++;
    if (!check) writeFileSync(file, after);
    console.log(`${check ? "would change" : "changed"} ${file}`);
  }
}
const left = outsideCitations();
for (const { file, line, text } of left) console.log(`unmapped: ${file}:${line}: ${text}`);
console.log(`${changed} files ${check ? "to change" : "changed"}; ${left.length} citations left outside the repository`);
process.exit(left.length || (check && changed) ? 1 : 0);
