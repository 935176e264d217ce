import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { brokenCitations, outsideCitations, ROOT } from "../scripts/docs/citations.mjs";

/** The repository explains itself: its citations stay inside it, and the README maps every folder. */
describe("the repository explains itself", () => {
  it("cites only documents inside the repository (node scripts/docs/retarget-citations.mjs mends most)", () => {
    expect(outsideCitations()).toEqual([]);
  });

  it("cites only sections that exist", () => {
    expect(brokenCitations()).toEqual([]);
  });

  it("the README's layout table covers every folder", () => {
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
    const layout = readme.slice(readme.indexOf("## Layout"), readme.indexOf("\n## ", readme.indexOf("## Layout") + 1));
    const entries = [...layout.matchAll(/^\| (.+?) \|/gm)].flatMap((m) => [...m[1]!.matchAll(/`([^`]+)\/`/g)].map((e) => e[1]!));
    const covers = (dir: string) =>
      entries.some((e) => {
        if (!e.includes("<")) return e === dir;
        const pattern = new RegExp(`^${e.replace(/<[^>]+>/g, "[^/]+")}(/.*)?$`);
        return pattern.test(dir);
      });
    const folders: string[] = [];
    const walk = (rel: string) => {
      folders.push(rel);
      for (const name of readdirSync(path.join(ROOT, rel))) {
        if (name === "node_modules" || name.startsWith(".")) continue;
        if (statSync(path.join(ROOT, rel, name)).isDirectory()) walk(`${rel}/${name}`);
      }
    };
    for (const top of ["worker/src", "worker/test", "web/src", "e2e", "scripts", "migrations", "docs", "samples", ".ci"]) walk(top);
    expect(folders.filter((f) => !covers(f))).toEqual([]);
  });
});
