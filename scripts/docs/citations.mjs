// Which files may cite documents, which citations point outside the repository, and which
// in-repository citations name a section that does not exist. Used by retarget-citations.mjs and
// by e2e/repository.test.ts.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

const ROOTS = ["worker", "web", "scripts", "e2e", "docs", "migrations", "README.md", "wrangler.toml", "eslint.config.js", "vite.config.ts", "vitest.config.ts"];
const SKIP_DIRS = new Set(["node_modules", "dist", ".wrangler", ".state", "test-results"]);
const TEXT = /\.(ts|tsx|mjs|js|md|css|toml|sql|html|json)$/;
/** This tool names the outside documents in order to find them. */
const SELF = path.join("scripts", "docs");

/** Repository-relative paths of the files whose text is checked. */
export function citationFiles() {
  const out = [];
  const walk = (rel) => {
    const abs = path.join(ROOT, rel);
    if (!existsSync(abs)) return;
    if (statSync(abs).isDirectory()) {
      if (SKIP_DIRS.has(path.basename(rel)) || rel === SELF) return;
      for (const name of readdirSync(abs)) walk(path.join(rel, name));
    } else if (TEXT.test(rel) && !rel.endsWith("package-lock.json") && !rel.includes(`${path.sep}meta${path.sep}`)) {
      out.push(rel);
    }
  };
  for (const r of ROOTS) walk(r);
  return out.sort();
}

/** A citation of a document that is not in the repository. */
const OUTSIDE =
  /decisions\.md|[Ss]pec §\d|\/work\/shared|shared\/docs\/|(?<![\w/])(?:integrations|codes|domains|style)\.md|\bthe spec\b|\b[Ii]ssue \d+\b|\bthe issue's\b/;

export function outsideCitations() {
  const found = [];
  for (const file of citationFiles()) {
    // A relative Markdown link between the docs points inside the repository by construction.
    const inDocs = file.startsWith("docs/");
    readFileSync(path.join(ROOT, file), "utf8")
      .split("\n")
      .forEach((text, i) => {
        const checked = inDocs ? text.replace(/\[[^\]]*\]\([\w-]+\.md\)/g, "") : text;
        if (OUTSIDE.test(checked)) found.push({ file, line: i + 1, text: text.trim().slice(0, 160) });
      });
  }
  return found;
}

const headings = (file) =>
  readFileSync(path.join(ROOT, file), "utf8")
    .split("\n")
    .filter((l) => /^#{1,6} /.test(l))
    .map((l) => l.replace(/^#{1,6} /, "").trim());

/** In-repository citations whose document or section does not exist. */
export function brokenCitations() {
  const broken = [];
  const cite = /(docs\/[\w-]+\.md)(?: "([^"]+)"| (§\d+))?|README "([^"]+)"/g;
  const cache = new Map();
  const headingsOf = (doc) => {
    if (!cache.has(doc)) cache.set(doc, existsSync(path.join(ROOT, doc)) ? headings(doc) : null);
    return cache.get(doc);
  };
  for (const file of citationFiles()) {
    const text = readFileSync(path.join(ROOT, file), "utf8");
    for (const m of text.matchAll(cite)) {
      const [, doc, section, paragraph, readmeSection] = m;
      const target = doc ?? "README.md";
      const list = headingsOf(target);
      if (!list) {
        broken.push({ file, citation: m[0], reason: `${target} does not exist` });
        continue;
      }
      const wanted = section ?? readmeSection;
      if (wanted && !list.includes(wanted)) broken.push({ file, citation: m[0], reason: `${target} has no section "${wanted}"` });
      if (paragraph && !list.some((h) => h.startsWith(`${paragraph} `))) broken.push({ file, citation: m[0], reason: `${target} has no section ${paragraph}` });
    }
  }
  return broken;
}
