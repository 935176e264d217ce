import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ruleValues } from "../src/db/queries/rules";
import { auditLog, campaigns, ruleFirings, rules } from "../src/db/schema";
import { createAdGroupStatusClient, TIKTOK_ADGROUP_STATUS_PATH } from "../src/integrations/tiktok";
import { evaluateRulesJob } from "../src/jobs/evaluate-rules";
import { rollUpClicks } from "../src/jobs/roll-up-clicks";
import { evaluateRules } from "../src/rules/evaluate";
import type { AlertMessage, AlertTarget, ChannelDelivery, DeliverAlert } from "../src/schemas/alerts";
import { ruleInputSchema, type RuleInputDraft } from "../src/schemas/rules";
import type { WebhookMessage } from "../src/webhooks/queue";
import { bodyOf, client, db, idParam, makeAdmin, uniqueName } from "./helpers";
import { ADVERTISER, configuredEnv, createFakes, fakeHttp, TIKTOK_URL } from "./performance-helpers";
import { seedCampaign, seedClicks, seedSpend } from "./stats-helpers";

const NOW = Date.parse("2026-03-10T12:00:00Z");
const MINUTE = 60_000;

/** A DeliverAlert that records what it was handed and answers for each channel. */
function recordingDeliverer() {
  const sent: { target: AlertTarget; message: AlertMessage }[] = [];
  const deliver: DeliverAlert = async (target, message) => {
    sent.push({ target, message });
    return target.channelIds.map((channelId): ChannelDelivery => ({ channelId, kind: "slack", ok: true, status: 200, detail: "Slack: delivered" }));
  };
  return { sent, deliver };
}

/**
 * A campaign whose clicks came through two ad groups of one ad campaign on NOW's day, $25 of
 * spend and no conversion, rolled up by the product's own cron step; and a rule on it that pauses
 * its ad groups once spend is $20 with no conversion. Its ad groups are live in the TikTok fake.
 */
async function scenario(over: Partial<RuleInputDraft> = {}, spendCents = 2500) {
  const tt = uniqueName("tt");
  const adGroups = [uniqueName("ag"), uniqueName("ag")];
  const campaignId = await seedCampaign();
  await seedClicks([
    { campaignId, at: NOW - 3 * 60 * MINUTE, tt, adGroup: adGroups[0], exitedAt: NOW - 3 * 60 * MINUTE + 5000 },
    { campaignId, at: NOW - 2 * 60 * MINUTE, tt, adGroup: adGroups[1] },
    { campaignId, at: NOW - 2 * 60 * MINUTE, tt, adGroup: adGroups[1], bot: true },
  ]);
  await seedSpend([{ date: "2026-03-10", tt, cents: spendCents }]);
  await rollUpClicks(db(), { now: NOW });
  const input = ruleInputSchema.parse({
    name: uniqueName("rule"),
    scope: { kind: "campaigns", values: [String(campaignId)] },
    window: { amount: 6, unit: "hours" },
    conditions: [{ metric: "conversions", op: "<", value: 1 }],
    guard: { metric: "spend", op: ">=", value: 20 },
    cooldownMinutes: 60,
    action: "actAndAlert",
    act: "pause",
    target: { channelIds: [7], admins: true },
    ...over,
  } satisfies RuleInputDraft);
  const [rule] = await db().insert(rules).values(ruleValues(input)).returning();
  const fakes = createFakes();
  for (const g of adGroups) fakes.tiktok.state.adGroups.set(g, { advertiserId: ADVERTISER, status: "ENABLE" });
  const tiktok = createAdGroupStatusClient({ baseUrl: TIKTOK_URL, accessToken: "tiktok-test-token" }, [ADVERTISER], fakeHttp(fakes));
  const recorder = recordingDeliverer();
  const run = (at: number) => evaluateRules(db(), at, { deliver: recorder.deliver, tiktok });
  const firings = () => db().select().from(ruleFirings).where(eq(ruleFirings.ruleId, rule!.id)).orderBy(ruleFirings.id);
  const mine = () => recorder.sent.filter((s) => s.message.source.kind === "rule" && s.message.source.ruleId === rule!.id);
  // Only this test's rule is evaluated by the others in the file once it is done.
  const done = () => db().update(rules).set({ enabled: false }).where(eq(rules.id, rule!.id));
  return { rule: rule!, campaignId, adGroups, fakes, run, firings, mine, done };
}

describe("rule evaluation", () => {
  it("fires once per scope item per cooldown, pausing the ad groups and notifying with the figures", async () => {
    const s = await scenario();
    await s.run(NOW);
    const [first] = await s.firings();
    expect(first).toMatchObject({ itemKey: `campaign:${s.campaignId}`, status: "done", action: "pause" });
    expect(first!.figures).toMatchObject({ spend: 25, conversions: 0, linkClicks: 2, ctr: 50, botShare: 33.33, roi: -100, cpa: null });
    expect(first!.tiktok.map((t) => [t.adGroupId, t.outcome])).toEqual(s.adGroups.map((g) => [g, "done"]).sort());
    expect(first!.deliveries).toEqual([{ channelId: 7, kind: "slack", ok: true, status: 200, detail: "Slack: delivered" }]);
    expect(s.adGroups.map((g) => s.fakes.tiktok.state.adGroups.get(g)?.status)).toEqual(["DISABLE", "DISABLE"]);
    const [sent] = s.mine();
    expect(sent!.target).toEqual({ channelIds: [7], admins: true });
    expect(sent!.message).toMatchObject({ link: `/rules/${s.rule.id}`, source: { kind: "rule", ruleId: s.rule.id, firingId: first!.id } });
    expect(sent!.message.facts).toEqual([
      { label: "Spend", value: "$25.00" },
      { label: "Conversions", value: "0" },
    ]);

    // Within the cooldown nothing happens again; after it, the rule fires again and finds them paused.
    await s.run(NOW + 15 * MINUTE);
    await s.run(NOW + 45 * MINUTE);
    expect(await s.firings()).toHaveLength(1);
    await s.run(NOW + 61 * MINUTE);
    const again = await s.firings();
    expect(again).toHaveLength(2);
    expect(again[1]!.status).toBe("done");
    expect(again[1]!.tiktok.map((t) => t.outcome)).toEqual(["already", "already"]);
    expect(again[1]!.tiktok[0]!.message).toMatch(/^Already paused/);
    expect(s.mine()).toHaveLength(2);

    const audited = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "rule.fire"), eq(auditLog.entityId, String(s.rule.id))));
    expect(audited).toHaveLength(2);
    expect(audited[0]!.summary).toContain("paused 2 ad group(s)");
    await s.done();
  });

  it("puts one rule.fired webhook event per firing on the webhooks queue, with the firing's figures (docs/webhooks.md)", async () => {
    const s = await scenario({ action: "alert", act: undefined });
    const queued: MessageSendRequest<WebhookMessage>[] = [];
    const queue = { sendBatch: async (messages: Iterable<MessageSendRequest<WebhookMessage>>) => void queued.push(...messages) };
    const webhooks = { WEBHOOKS_QUEUE: queue as unknown as Queue<WebhookMessage> };
    await evaluateRules(db(), NOW, { deliver: recordingDeliverer().deliver, tiktok: null, webhooks });
    const [firing] = await s.firings();
    const mine = queued.map((m) => m.body).filter((b) => b.kind === "event" && b.event.data.rule_id === s.rule.id);
    expect(mine).toEqual([
      {
        kind: "event",
        mediaBuyer: null,
        event: expect.objectContaining({
          type: "rule.fired",
          id: expect.stringMatching(/^evt_/),
          data: expect.objectContaining({ firing_id: firing!.id, rule_name: s.rule.name, item_key: `campaign:${s.campaignId}`, action: "alert" }),
        }),
      },
    ]);
    // Within the cooldown nothing fires, so nothing is emitted.
    await evaluateRules(db(), NOW + 15 * MINUTE, { deliver: recordingDeliverer().deliver, tiktok: null, webhooks });
    expect(queued.map((m) => m.body).filter((b) => b.kind === "event" && b.event.data.rule_id === s.rule.id)).toHaveLength(1);
    await s.done();
  });

  it("an ad group already paused by hand is reported on the firing and in the alert, not as a problem", { timeout: 30_000 }, async () => {
    const s = await scenario();
    const [byHand, live] = s.adGroups as [string, string];
    s.fakes.tiktok.state.adGroups.set(byHand, { advertiserId: ADVERTISER, status: "DISABLE" });
    await s.run(NOW);
    const [firing] = await s.firings();
    expect(firing!.status).toBe("done");
    expect(Object.fromEntries(firing!.tiktok.map((t) => [t.adGroupId, t.outcome]))).toEqual({ [byHand]: "already", [live]: "done" });
    expect(firing!.tiktok.find((t) => t.adGroupId === byHand)!.message).toMatch(/^Already paused/);
    // Only the live one was sent to TikTok's status update.
    const calls = s.fakes.tiktok.state.requests.filter((r) => r.path === TIKTOK_ADGROUP_STATUS_PATH);
    expect(calls.map((c) => JSON.parse(c.params.adgroup_ids!) as string[])).toEqual([[live]]);
    expect(s.mine()[0]!.message.text).toContain("paused 1 ad group(s), 1 already paused, 0 failed");
    await s.done();
  });

  it("acts and notifies once when two runs overlap", async () => {
    const s = await scenario();
    await Promise.all([s.run(NOW), s.run(NOW), s.run(NOW + 1)]);
    expect(await s.firings()).toHaveLength(1);
    expect(s.mine()).toHaveLength(1);
    const statusCalls = s.fakes.tiktok.state.requests.filter((r) => r.path === TIKTOK_ADGROUP_STATUS_PATH);
    expect(statusCalls).toHaveLength(1);
    await s.done();
  });

  it("does not fire before the guard holds", async () => {
    const s = await scenario({}, 1999);
    await s.run(NOW);
    expect(await s.firings()).toEqual([]);
    await s.done();
  });

  it("reports TikTok's refusals on the firing: rate limit, permission, token, and a 5xx retried once", async () => {
    const cases = [
      { failures: [{ code: 40100, message: "Too many requests." }], outcome: "failed", code: 40100, text: /rate limit/ },
      { failures: [{ code: 40001, message: "No permission to operate advertiser." }], outcome: "failed", code: 40001, text: /no permission/ },
      { failures: [{ code: 40105, message: "Access token is incorrect or has been revoked." }], outcome: "failed", code: 40105, text: /not valid/ },
      { failures: [{ status: 502, text: "<html>Bad gateway</html>" }], outcome: "done", code: 0, text: /Paused/ },
      {
        failures: [
          { status: 503, text: "busy" },
          { status: 503, text: "busy" },
        ],
        outcome: "failed",
        code: 503,
        text: /HTTP 503/,
      },
    ] as const;
    for (const c of cases) {
      const s = await scenario();
      s.fakes.tiktok.failNext(...c.failures.map((f) => ({ ...f, path: TIKTOK_ADGROUP_STATUS_PATH })));
      await s.run(NOW);
      const [firing] = await s.firings();
      expect(firing!.status, JSON.stringify(c.failures)).toBe(c.outcome === "done" ? "done" : "problem");
      const answer = firing!.tiktok[0]!;
      expect(answer.outcome).toBe(c.outcome);
      expect(answer.code).toBe(c.code);
      expect(answer.message).toMatch(c.text);
      // Not retried within the run (a 5xx once): exactly the calls the failures account for.
      const statusCalls = s.fakes.tiktok.state.requests.filter((r) => r.path === TIKTOK_ADGROUP_STATUS_PATH).length;
      expect(statusCalls).toBe(c.code === 0 ? 2 : c.code === 503 ? 2 : 1);
      // The alert still goes out, saying what TikTok answered.
      expect(s.mine()[0]!.message.text).toContain(c.outcome === "done" ? "paused 2 ad group(s)" : "2 failed");
      await s.done();
    }
  });

  it("reports a scope's deleted campaign on the rule's history once per cooldown, and carries on", async () => {
    const admin = await makeAdmin();
    const s = await scenario();
    await db().delete(campaigns).where(eq(campaigns.id, s.campaignId));
    await s.run(NOW);
    await s.run(NOW + 15 * MINUTE);
    const history = await bodyOf(await client(admin).rules[":id"].$get(idParam(s.rule.id)), 200);
    expect(history.firings).toHaveLength(1);
    expect(history.firings[0]).toMatchObject({ status: "skipped", itemKey: `campaign:${s.campaignId}` });
    expect(history.firings[0]!.note).toContain(`Campaign #${s.campaignId} was deleted`);
    expect(history.rule.lastFiredAt).toBeNull();
    expect(s.mine()).toEqual([]);
    await s.done();
  });

  it("runs as the cron's job with the deliverer passed in, TikTok from the environment", async () => {
    const s = await scenario({ action: "alert", act: null });
    const recorder = recordingDeliverer();
    await evaluateRulesJob(() => recorder.deliver).run({ db: db(), env: configuredEnv({ TIKTOK_ACCESS_TOKEN: undefined }), now: NOW });
    const [firing] = await s.firings();
    expect(firing).toMatchObject({ action: "alert", status: "done", tiktok: [] });
    expect(recorder.sent.filter((m) => m.message.source.kind === "rule" && m.message.source.ruleId === s.rule.id)).toHaveLength(1);
    await s.done();
  });
});

describe("TikTok ad group status client", () => {
  it("sends 1-20 ad groups per call, reports unknown ones, and leaves those already paused alone", async () => {
    const fakes = createFakes();
    const ids = Array.from({ length: 45 }, (_, i) => `agc-${i}`);
    for (const id of ids) fakes.tiktok.state.adGroups.set(id, { advertiserId: ADVERTISER, status: id === "agc-3" ? "DISABLE" : "ENABLE" });
    const client = createAdGroupStatusClient({ baseUrl: TIKTOK_URL, accessToken: "tiktok-test-token" }, [ADVERTISER], fakeHttp(fakes));
    const answers = await client.setStatus([...ids, "agc-missing"], "DISABLE");
    const calls = fakes.tiktok.state.requests.filter((r) => r.path === TIKTOK_ADGROUP_STATUS_PATH);
    expect(calls.map((c) => (JSON.parse(c.params.adgroup_ids!) as string[]).length)).toEqual([20, 20, 4]);
    expect(calls.every((c) => c.params.operation_status === "DISABLE" && c.params.advertiser_id === ADVERTISER)).toBe(true);
    expect(answers.find((a) => a.adGroupId === "agc-3")).toMatchObject({ outcome: "already", code: 0 });
    expect(answers.find((a) => a.adGroupId === "agc-missing")).toMatchObject({ outcome: "not_found", advertiserId: null });
    expect(answers.filter((a) => a.outcome === "done")).toHaveLength(44);
    expect([...fakes.tiktok.state.adGroups.values()].every((g) => g.status === "DISABLE")).toBe(true);
  });
});
