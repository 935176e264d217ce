import { eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import { audit, diff, fields, unlessUnchanged } from "../audit/record";
import { existingIds, getRule, lastFirings, listFirings, listRules, ruleValues, type FiringRow, type RuleRow } from "../db/queries/rules";
import { rules } from "../db/schema";
import type { AppEnv, Db } from "../env";
import { DAY_MS } from "../lib/calendar-days";
import { badRequest, notFound } from "../lib/errors";
import { iso, isoOrNull } from "../lib/time";
import { validate } from "../lib/validate";
import { dryRun } from "../rules/dry-run";
import { idParam } from "../schemas/common";
import { describeCondition, RULE_SCOPE_LABELS, ruleEnabledSchema, ruleInputSchema, type RuleInput } from "../schemas/rules";

const inputOf = (r: RuleRow): RuleInput => ({
  name: r.name,
  enabled: r.enabled,
  scope: r.scope,
  window: { amount: r.windowAmount, unit: r.windowUnit },
  conditions: r.conditions,
  guard: r.guard,
  cooldownMinutes: r.cooldownMinutes,
  action: r.action,
  act: r.act,
  target: r.target,
});

const ruleJson = (r: RuleRow, lastFiredAt: number | null = null) => ({
  id: r.id,
  ...inputOf(r),
  createdAt: iso(r.createdAt),
  updatedAt: iso(r.updatedAt),
  lastFiredAt: isoOrNull(lastFiredAt),
});

const firingJson = (f: FiringRow) => ({
  id: f.id,
  itemKey: f.itemKey,
  itemLabel: f.itemLabel,
  firedAt: iso(f.firedAt),
  status: f.status,
  figures: f.figures,
  action: f.action,
  tiktok: f.tiktok,
  deliveries: f.deliveries,
  note: f.note,
});

/** A rule as its audit entries show it. */
const described = (input: RuleInput) => ({
  name: input.name,
  enabled: input.enabled,
  scope: `${RULE_SCOPE_LABELS[input.scope.kind]}${input.scope.values.length ? `: ${input.scope.values.join(", ")}` : ""}`,
  window: `last ${input.window.amount} ${input.window.unit}`,
  conditions: input.conditions.map(describeCondition).join(" and "),
  guard: input.guard ? describeCondition(input.guard) : null,
  cooldown: `${input.cooldownMinutes} min`,
  action: input.action === "actAndAlert" ? `${input.act} and alert` : "alert only",
});
const LABELS = {
  name: "Name",
  enabled: "Enabled",
  scope: "Scope",
  window: "Window",
  conditions: "Conditions",
  guard: "Guard",
  cooldown: "Cooldown",
  action: "Action",
};

/** A scope naming a campaign, offer or spark that does not exist is refused: 400 naming each. */
async function checkScope(db: Db, input: RuleInput) {
  const { kind, values } = input.scope;
  if (kind === "all" || kind === "adGroups") return;
  const ids = values.map(Number);
  const found = await existingIds(db, kind, ids);
  const gone = ids.filter((id) => !found.has(id));
  const what = { campaigns: "Campaign", offers: "Offer", sparks: "Spark" }[kind];
  if (gone.length)
    throw badRequest(
      `${what} ${gone.map((id) => `#${id}`).join(", ")} does not exist (deleted?): remove it from the scope`,
      gone.map((id) => `scope.values: ${what} #${id} does not exist`),
    );
}

/** The ad groups (tracking values, with their last known name) of the last 30 days' clicks: the editor's choices. */
const recentAdGroups = (db: Db) =>
  db.all<{ id: string; name: string }>(sql`
    select tiktok_ad_group_id as id, max(ad_group_name) as name from click_daily_stats
    where date >= ${new Date(Date.now() - 30 * DAY_MS).toISOString().slice(0, 10)} and tiktok_ad_group_id <> ''
    group by tiktok_ad_group_id order by name, id limit 500`);

export const ruleRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const db = c.get("db");
    const [list, last] = await Promise.all([listRules(db), lastFirings(db)]);
    return c.json(
      list.map((r) => ruleJson(r, last.get(r.id) ?? null)),
      200,
    );
  })

  .get("/options", async (c) => {
    const db = c.get("db");
    const [campaigns, offers, sparks, adGroups] = await Promise.all([
      db.all<{ id: number; name: string }>(sql`select id, name from campaigns order by name, id`),
      db.all<{ id: number; name: string }>(sql`select id, name from offers order by name, id`),
      db.all<{ id: number; name: string }>(sql`select id, name from sparks order by name, id`),
      recentAdGroups(db),
    ]);
    return c.json({ campaigns, offers, sparks, adGroups }, 200);
  })

  .post("/dry-run", validate("json", ruleInputSchema), async (c) => {
    const input = c.req.valid("json");
    await checkScope(c.get("db"), input);
    const result = await dryRun(c.get("db"), input, Date.now());
    return c.json(
      {
        ...result,
        evaluatedAt: result.evaluatedAt.map(iso),
        items: result.items.map((i) => ({ ...i, matches: i.matches.map((m) => ({ at: iso(m.at), figures: m.figures })), firings: i.firings.map(iso) })),
      },
      200,
    );
  })

  .post("/", validate("json", ruleInputSchema), async (c) => {
    const db = c.get("db");
    const input = c.req.valid("json");
    await checkScope(db, input);
    const [inserted] = await db.batch([
      db.insert(rules).values(ruleValues(input)).returning(),
      audit(c, { action: "rule.create", kind: "rule", id: sql`last_insert_rowid()`, summary: fields(described(input), LABELS) }),
    ]);
    const rule = inserted[0];
    if (!rule) throw new Error("the rule insert returned no row");
    return c.json(ruleJson(rule), 201);
  })

  .get("/:id", validate("param", idParam), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const rule = await getRule(db, id);
    if (!rule) throw notFound("Rule not found");
    const firings = await listFirings(db, id);
    const lastFired = firings.find((f) => f.status !== "skipped")?.firedAt ?? null;
    return c.json({ rule: ruleJson(rule, lastFired), firings: firings.map(firingJson) }, 200);
  })

  .get("/:id/history", validate("param", idParam), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    if (!(await getRule(db, id))) throw notFound("Rule not found");
    return c.json((await listFirings(db, id)).map(firingJson), 200);
  })

  .put("/:id", validate("param", idParam), validate("json", ruleInputSchema), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const input = c.req.valid("json");
    const before = await getRule(db, id);
    if (!before) throw notFound("Rule not found");
    await checkScope(db, input);
    const [updated] = await db.batch([
      db
        .update(rules)
        .set({ ...ruleValues(input), updatedAt: Date.now() })
        .where(eq(rules.id, id))
        .returning(),
      ...unlessUnchanged(diff(described(inputOf(before)), described(input), LABELS), (summary) =>
        audit(c, { action: "rule.update", kind: "rule", id, summary }, { ifChanged: true }),
      ),
    ]);
    const rule = updated[0];
    if (!rule) throw notFound("Rule not found");
    return c.json(ruleJson(rule), 200);
  })

  .post("/:id/enabled", validate("param", idParam), validate("json", ruleEnabledSchema), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const { enabled } = c.req.valid("json");
    const before = await getRule(db, id);
    if (!before) throw notFound("Rule not found");
    const [updated] = await db.batch([
      db.update(rules).set({ enabled, updatedAt: Date.now() }).where(eq(rules.id, id)).returning(),
      ...unlessUnchanged(diff({ enabled: before.enabled }, { enabled }, { enabled: "Enabled" }), (summary) =>
        audit(c, { action: enabled ? "rule.enable" : "rule.disable", kind: "rule", id, summary: `${before.name}: ${summary}` }, { ifChanged: true }),
      ),
    ]);
    const rule = updated[0];
    if (!rule) throw notFound("Rule not found");
    return c.json(ruleJson(rule), 200);
  })

  .delete("/:id", validate("param", idParam), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const before = await getRule(db, id);
    if (!before) throw notFound("Rule not found");
    const [deleted] = await db.batch([
      db.delete(rules).where(eq(rules.id, id)).returning({ id: rules.id }),
      audit(c, { action: "rule.delete", kind: "rule", id, summary: fields(described(inputOf(before)), LABELS) }, { ifChanged: true }),
    ]);
    if (!deleted.length) throw notFound("Rule not found");
    return c.json({ ok: true }, 200);
  });
