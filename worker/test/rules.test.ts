import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, campaigns } from "../src/db/schema";
import type { RuleInputDraft } from "../src/schemas/rules";
import { bodyOf, call, client, db, idParam, makeAdmin, makeUser } from "./helpers";
import { rollUpClicks } from "../src/jobs/roll-up-clicks";
import { seedCampaign, seedClicks, seedSpend } from "./stats-helpers";

const draft = (over: Partial<RuleInputDraft> = {}): RuleInputDraft => ({
  name: "Spending, no conversions",
  scope: { kind: "all", values: [] },
  window: { amount: 1, unit: "days" },
  conditions: [{ metric: "conversions", op: "<", value: 1 }],
  guard: { metric: "spend", op: ">=", value: 20 },
  cooldownMinutes: 120,
  action: "actAndAlert",
  act: "pause",
  target: { channelIds: [], admins: true },
  ...over,
});

const errorOf = async (res: Response) => {
  expect(res.status, "a 400 for bad input").toBe(400);
  return (await res.json()) as { error: string; details?: string[] };
};

describe("rules API", () => {
  it("creates, reads, updates, switches and deletes a rule, each audited", async () => {
    const admin = await makeAdmin();
    const api = client(admin);
    const campaignId = await seedCampaign();
    const created = await bodyOf(await api.rules.$post({ json: draft({ scope: { kind: "campaigns", values: [String(campaignId)] } }) }), 201);
    expect(created).toMatchObject({ name: "Spending, no conversions", enabled: true, window: { amount: 1, unit: "days" }, act: "pause", lastFiredAt: null });

    const list = await bodyOf(await api.rules.$get(), 200);
    expect(list.map((r) => r.id)).toContain(created.id);

    const updated = await bodyOf(await api.rules[":id"].$put({ ...idParam(created.id), json: draft({ name: "Renamed", action: "alert", act: null }) }), 200);
    expect(updated).toMatchObject({ name: "Renamed", action: "alert", act: null, scope: { kind: "all" } });

    const off = await bodyOf(await api.rules[":id"].enabled.$post({ ...idParam(created.id), json: { enabled: false } }), 200);
    expect(off.enabled).toBe(false);

    const one = await bodyOf(await api.rules[":id"].$get(idParam(created.id)), 200);
    expect(one.rule.name).toBe("Renamed");
    expect(one.firings).toEqual([]);

    await bodyOf(await api.rules[":id"].$delete(idParam(created.id)), 200);
    expect((await api.rules[":id"].$get(idParam(created.id))).status).toBe(404);

    const entries = await db()
      .select({ action: auditLog.action, summary: auditLog.summary })
      .from(auditLog)
      .where(and(eq(auditLog.entityKind, "rule"), eq(auditLog.entityId, String(created.id))));
    expect(entries.map((e) => e.action)).toEqual(["rule.create", "rule.update", "rule.disable", "rule.delete"]);
    expect(entries[1]!.summary).toContain("Name: Spending, no conversions → Renamed");
  });

  it("refuses bad rules with a clear 400 and stores nothing", async () => {
    const admin = await makeAdmin();
    const before = (await bodyOf(await client(admin).rules.$get(), 200)).length;
    const post = (json: unknown) => call("/api/rules", { cookie: admin.cookie, json });

    const notNumber = await errorOf(await post({ ...draft(), conditions: [{ metric: "spend", op: ">", value: "lots" }] }));
    expect(notNumber.error).toBe('The threshold must be a number, not "lots"');
    const unknown = await errorOf(await post({ ...draft(), conditions: [{ metric: "happiness", op: ">", value: 1 }] }));
    expect(unknown.error).toMatch(/^Unknown metric "happiness": use one of spend, revenue/);
    const zero = await errorOf(await post({ ...draft(), window: { amount: 0, unit: "hours" } }));
    expect(zero.error).toBe("The window must be at least 1 hour or day");
    const tooLong = await errorOf(await post({ ...draft(), window: { amount: 31, unit: "days" } }));
    expect(tooLong.error).toBe("The window is at most 30 days");
    const noAct = await errorOf(await post({ ...draft(), act: null }));
    expect(noAct.error).toBe("Choose whether to pause or resume the ad groups");
    const noValues = await errorOf(await post({ ...draft(), scope: { kind: "campaigns", values: [] } }));
    expect(noValues.error).toBe("Choose at least one of the campaigns");

    const campaignId = await seedCampaign();
    await db().delete(campaigns).where(eq(campaigns.id, campaignId));
    const gone = await errorOf(await post({ ...draft(), scope: { kind: "campaigns", values: [String(campaignId)] } }));
    expect(gone.error).toBe(`Campaign #${campaignId} does not exist (deleted?): remove it from the scope`);
    const goneDryRun = await errorOf(
      await call("/api/rules/dry-run", { cookie: admin.cookie, json: { ...draft(), scope: { kind: "campaigns", values: [String(campaignId)] } } }),
    );
    expect(goneDryRun.error).toContain("does not exist");

    expect((await bodyOf(await client(admin).rules.$get(), 200)).length).toBe(before);
  });

  it("dry-runs an unsaved rule over the last 7 days: per item the figures and when it would have fired", async () => {
    const admin = await makeAdmin();
    const now = Date.now();
    const campaignId = await seedCampaign();
    const tt = `tt-dry-${campaignId}`;
    // Clicks today and three days ago, spend on both days; nothing stored by the dry run.
    await seedClicks([
      { campaignId, at: now - 1_000, tt, adGroup: `ag-dry-${campaignId}` },
      { campaignId, at: now - 3 * 86_400_000, tt, adGroup: `ag-dry-${campaignId}` },
    ]);
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    await seedSpend([
      { date: day(now), tt, cents: 3000 },
      { date: day(now - 3 * 86_400_000), tt, cents: 4000 },
    ]);
    await rollUpClicks(db(), { now });
    const rule = draft({ scope: { kind: "campaigns", values: [String(campaignId)] }, cooldownMinutes: 24 * 60 });
    const result = await bodyOf(await client(admin).rules["dry-run"].$post({ json: rule }), 200);
    expect(result.evaluatedAt).toHaveLength(7);
    expect(result.checkedItems).toBe(1);
    const [item] = result.items;
    expect(item!.key).toBe(`campaign:${campaignId}`);
    expect(item!.matches.map((m) => m.figures.spend)).toEqual([40, 30]);
    expect(item!.firings).toEqual([result.evaluatedAt[3], result.evaluatedAt[6]]);
    expect(item!.adGroups).toEqual([`ag-dry-${campaignId}`]);
    expect((await bodyOf(await client(admin).rules.$get(), 200)).some((r) => r.name === rule.name && r.scope.values[0] === String(campaignId))).toBe(false);
  });

  it("is for admins only", async () => {
    const member = await makeUser("user", ["dashboard", "campaigns"]);
    expect((await call("/api/rules", { cookie: member.cookie })).status).toBe(403);
    expect((await call("/api/rules", { cookie: member.cookie, json: draft() })).status).toBe(403);
  });
});
