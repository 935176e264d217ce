import { effectivePercents, pathSetProblems, putPathsSchema, type ConditionField, type Path, type PathValues } from "../../../../worker/src/schemas/paths";

/**
 * The Traffic distribution editor's state and rules, kept apart from the screen so they are tested
 * alone: the paths as the form holds them (numbers as typed), percentages, reordering, and the
 * problems to show beside each field before and after a save (docs/traffic-distribution.md).
 */

export type Op = "is" | "isNot";
export type OptimiseMode = "off" | "cr" | "epv";

export interface DraftCondition {
  key: string;
  field: ConditionField;
  /** field "param": the query parameter's name. */
  param: string;
  op: Op;
  /** Countries, weekdays (0-6) and hours (0-23) are picked; other fields are typed, comma-separated. */
  values: string[];
  text: string;
}

export interface DraftVariant {
  key: string;
  /** The lander's or the offer's id; null until one is chosen. */
  ref: number | null;
  /** As typed: a whole number, relative to the other variants of the path. */
  weight: string;
  paused: boolean;
  pinned: boolean;
}

export interface DraftPath {
  key: string;
  id?: number;
  name: string;
  isDefault: boolean;
  conditions: DraftCondition[];
  landers: DraftVariant[];
  offers: DraftVariant[];
  directToOffer: boolean;
  sticky: boolean;
  stickyDays: string;
  optimisation: { mode: OptimiseMode; windowDays: string; floorPercent: string; minVisits: string };
}

/** Problems by where they are: `${pathKey}/${field}` (field as the API names it inside a path: "landers.0.weight"), or `paths` for the whole set. */
export type Problems = Record<string, string>;

let counter = 0;
export const newKey = () => `k${++counter}`;

/** The fields whose values are picked from a list rather than typed. */
export const PICKED_FIELDS: readonly ConditionField[] = ["country", "weekday", "hour"];

export const FIELD_LABELS: Record<ConditionField, string> = {
  country: "Country",
  region: "Region",
  city: "City",
  deviceType: "Device type",
  os: "OS",
  browser: "Browser",
  language: "Language",
  asn: "ISP / ASN",
  weekday: "Day of week",
  hour: "Hour",
  param: "Query parameter",
};

export const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;

const splitText = (text: string) =>
  text
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);

export const conditionValues = (c: DraftCondition) => (PICKED_FIELDS.includes(c.field) ? c.values : splitText(c.text));

export function newCondition(field: ConditionField = "country"): DraftCondition {
  return { key: newKey(), field, param: "", op: "is", values: [], text: "" };
}

export const newVariant = (ref: number | null = null, weight = "100"): DraftVariant => ({ key: newKey(), ref, weight, paused: false, pinned: false });

const DEFAULT_OPTIMISATION = { mode: "off", windowDays: "7", floorPercent: "5", minVisits: "200" } as const;

export function newPath(name: string): DraftPath {
  return {
    key: newKey(),
    name,
    isDefault: false,
    conditions: [newCondition()],
    landers: [newVariant()],
    offers: [],
    directToOffer: false,
    sticky: false,
    stickyDays: "7",
    optimisation: { ...DEFAULT_OPTIMISATION },
  };
}

/** A path as the API answers it: a campaign that never had paths of its own has one default path without an id yet. */
export type SavedPath = Omit<Path, "id"> & { id: number | null };

/** The saved paths as the editor holds them. */
export function toDraft(paths: readonly SavedPath[]): DraftPath[] {
  return paths.map((p) => ({
    key: newKey(),
    id: p.id ?? undefined,
    name: p.name,
    isDefault: p.isDefault,
    conditions: p.conditions.map((c) => ({
      key: newKey(),
      field: c.field,
      param: c.param ?? "",
      op: c.op,
      values: [...c.values],
      text: c.values.join(", "),
    })),
    landers: p.landers.map((v) => ({ key: newKey(), ref: v.landerId, weight: String(v.weight), paused: v.paused, pinned: v.pinned })),
    offers: p.offers.map((v) => ({ key: newKey(), ref: v.offerId, weight: String(v.weight), paused: v.paused, pinned: v.pinned })),
    directToOffer: p.directToOffer,
    sticky: p.stickyDays !== null,
    stickyDays: String(p.stickyDays ?? 7),
    optimisation: {
      mode: p.optimisation.mode,
      windowDays: String(p.optimisation.windowDays),
      floorPercent: String(p.optimisation.floorPercent),
      minVisits: String(p.optimisation.minVisits),
    },
  }));
}

/** A number as typed, or NaN for nothing or for text (the schema then refuses it). */
const numberOf = (typed: string) => (typed.trim() === "" ? Number.NaN : Number(typed));

/** The PUT's body: what the form holds, in evaluation order. */
export function toPut(paths: readonly DraftPath[]): { paths: PathValues[] } {
  return {
    paths: paths.map((p) => ({
      ...(p.id !== undefined && { id: p.id }),
      name: p.name,
      isDefault: p.isDefault,
      conditions: p.isDefault
        ? []
        : p.conditions.map((c) => ({ field: c.field, ...(c.field === "param" && { param: c.param }), op: c.op, values: conditionValues(c) })),
      // Straight to offer: the landers are kept on screen (switching back restores them) but not sent.
      landers: p.directToOffer ? [] : p.landers.map((v) => ({ landerId: v.ref ?? 0, weight: numberOf(v.weight), paused: v.paused, pinned: v.pinned })),
      offers: p.offers.map((v) => ({ offerId: v.ref ?? 0, weight: numberOf(v.weight), paused: v.paused, pinned: v.pinned })),
      directToOffer: p.directToOffer,
      stickyDays: p.sticky ? numberOf(p.stickyDays) : null,
      optimisation: {
        mode: p.optimisation.mode,
        windowDays: numberOf(p.optimisation.windowDays),
        floorPercent: numberOf(p.optimisation.floorPercent),
        minVisits: numberOf(p.optimisation.minVisits),
      },
    })),
  };
}

/**
 * Each variant's share of the path's traffic in percent, to one decimal, summing to exactly 100: the
 * server's own figures (effectivePercents). All null while the weights that count sum to 0 or one
 * of them is not a whole number yet.
 */
export function percentages(variants: readonly Pick<DraftVariant, "weight" | "paused">[]): (number | null)[] {
  const weights = variants.map((v) => (v.paused ? 0 : numberOf(v.weight)));
  if (weights.some((w) => !Number.isInteger(w) || w < 0) || weights.every((w) => w === 0)) return variants.map(() => null);
  return effectivePercents(weights.map((weight) => ({ weight })));
}

/** "33.3%", "50%". */
export const formatShare = (share: number | null) => (share === null ? "—" : `${Number.isInteger(share) ? share : share.toFixed(1)}%`);

/**
 * The paths with the rule path at `index` moved one place up or down. The default path is always
 * last: it does not move, and nothing moves below it.
 */
export function movePath(paths: readonly DraftPath[], index: number, direction: -1 | 1): DraftPath[] {
  const to = index + direction;
  const path = paths[index];
  const other = paths[to];
  if (!path || !other || path.isDefault || other.isDefault) return [...paths];
  const next = [...paths];
  next[index] = other;
  next[to] = path;
  return next;
}

/** A new rule path goes just above the default one (the last rule evaluated before it). */
export function addPath(paths: readonly DraftPath[], name = `Rule ${paths.length}`): DraftPath[] {
  const at = paths.findIndex((p) => p.isDefault);
  const next = [...paths];
  next.splice(at === -1 ? next.length : at, 0, newPath(name));
  return next;
}

/** The API's field name inside a path ("landers.0.weight") from a zod issue's path. */
const fieldOf = (issuePath: readonly PropertyKey[]) => issuePath.slice(2).map(String).join(".");

/**
 * What would keep the set from saving, by field: first what only the form can see (a variant with
 * nothing chosen yet, a number typed wrong), then the API's own schema, whose rules for a set of
 * paths (worker/src/schemas/paths.ts `pathSetProblems`: the default path, a lander or straight to
 * an offer, weights that send somebody, no variant twice, known country codes) say the sentences
 * the server would. The server checks again, and what only it knows: a lander deleted meanwhile.
 */
export function validate(paths: readonly DraftPath[]): Problems {
  const problems: Problems = {};
  const put = (key: string, message: string) => {
    problems[key] ??= message;
  };
  const whole = (typed: string, min: number, max: number) => /^\d+$/.test(typed.trim()) && Number(typed) >= min && Number(typed) <= max;
  paths.forEach((p) => {
    const at = (field: string, message: string) => put(`${p.key}/${field}`, message);
    for (const kind of p.directToOffer ? (["offers"] as const) : (["landers", "offers"] as const))
      p[kind].forEach((v, i) => {
        if (v.ref === null) at(`${kind}.${i}.${kind === "landers" ? "landerId" : "offerId"}`, `Choose ${kind === "landers" ? "a lander" : "an offer"}`);
        if (!/^\d+$/.test(v.weight.trim())) at(`${kind}.${i}.weight`, "Weight must be a whole number from 0");
      });
    if (!p.isDefault)
      p.conditions.forEach((c, i) => {
        if (c.field === "param" && c.param.trim() === "") at(`conditions.${i}.param`, "Name the query parameter");
      });
    if (p.sticky && !whole(p.stickyDays, 1, 90)) at("stickyDays", "Sticky days: a whole number from 1 to 90");
    if (p.optimisation.mode !== "off") {
      const o = p.optimisation;
      if (!whole(o.windowDays, 1, 90)) at("optimisation.windowDays", "A whole number of days from 1 to 90");
      const floor = Number(o.floorPercent);
      if (o.floorPercent.trim() === "" || !(floor >= 0 && floor <= 50)) at("optimisation.floorPercent", "A percentage from 0 to 50");
      if (!whole(o.minVisits, 0, 1_000_000)) at("optimisation.minVisits", "A whole number of visits from 0 to 1,000,000");
    }
  });
  const body = toPut(paths);
  const parsed = putPathsSchema.safeParse(body);
  // The set's rules run on their own too: the schema applies them only once every field parses.
  const issues = [...(parsed.success ? [] : parsed.error.issues), ...pathSetProblems(body.paths)];
  for (const issue of issues) {
    const path = issue.path[0] === "paths" && issue.path.length > 1 ? paths[Number(issue.path[1])] : undefined;
    if (path) put(`${path.key}/${fieldOf(issue.path)}`, issue.message);
    else put("paths", issue.message);
  }
  return problems;
}

/**
 * A refused save's `details`, placed like the form's own problems: "paths.1.landers.0.weight: ..."
 * by the path sent at that index and its field, 'Path "Germany": ...' at the top of the path of
 * that name. A sentence naming no path is the whole set's.
 */
export function problemsFromServer(sent: readonly DraftPath[], details: readonly string[], message: string): Problems {
  const problems: Problems = {};
  const add = (key: string, text: string) => {
    problems[key] = problems[key] ? `${problems[key]} · ${text}` : text;
  };
  for (const line of details) {
    const byIndex = /^paths\.(\d+)(?:\.([^:]+))?: (.*)$/s.exec(line);
    const byName = /^Path "(.*?)": (.*)$/s.exec(line);
    const indexed = byIndex ? sent[Number(byIndex[1])] : undefined;
    const named = byName ? sent.find((p) => p.name.trim() === byName[1]) : undefined;
    if (byIndex && indexed) add(`${indexed.key}/${byIndex[2] ?? ""}`, byIndex[3]!);
    else if (byName && named) add(`${named.key}/`, byName[2]!);
    else add("paths", line.replace(/^paths: /, ""));
  }
  if (!Object.keys(problems).length) problems.paths = message;
  return problems;
}

/** One path's problems, by field inside the path. */
export function problemsOf(problems: Problems, pathKey: string): Record<string, string> {
  const prefix = `${pathKey}/`;
  return Object.fromEntries(
    Object.entries(problems)
      .filter(([k]) => k.startsWith(prefix))
      .map(([k, v]) => [k.slice(prefix.length), v]),
  );
}

/**
 * Whether a field inside a path has a place of its own on screen (a row that exists, a section
 * that is shown); the others show at the path's top, so no refusal goes unseen.
 */
export function hasOwnPlace(field: string, path: DraftPath): boolean {
  if (/^(name|stickyDays|optimisation\.\w+)$/.test(field)) return true;
  const match = /^(conditions|landers|offers)(?:\.(\d+)(?:\..+)?)?$/.exec(field);
  if (!match) return false;
  const list = match[1] as "conditions" | "landers" | "offers";
  if (list === "conditions" && path.isDefault) return false;
  if (list === "landers" && path.directToOffer) return false;
  return match[2] === undefined || Number(match[2]) < path[list].length;
}
