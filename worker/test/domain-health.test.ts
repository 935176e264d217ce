import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { runBuiltinAlerts } from "../src/alerts/run-builtin";
import { checkDomainHealth, HEALTH_EVERY_MS } from "../src/domains/health";
import { listDate } from "../src/domains/namecheap";
import type { AlertMessage, DeliverAlert } from "../src/schemas/alerts";
import { createDomainFakes, domainDeps, freshName, insertDomain, rowOf } from "./domain-helpers";
import { db } from "./helpers";

const DAY = 86_400_000;

/** A deliverer that only records the domain alert's messages. */
function recorder() {
  const sent: AlertMessage[] = [];
  const deliver: DeliverAlert = async (_target, message) => {
    if (message.source.kind === "builtin" && message.source.alert === "domain-expiring-or-detached") sent.push(message);
    return [];
  };
  return { sent, deliver };
}

describe("the built-in alert for tracking domains expiring or detached", () => {
  it(
    "the domains check records Namecheap's expiry and the Worker's custom domains; the alert fires once per expiry and once per detachment",
    { timeout: 30_000 },
    async () => {
      const [expiring, detached] = [freshName("expiring"), freshName("detached")];
      const fakes = createDomainFakes({ namecheap: { owned: [expiring, detached] } });
      // Bought 345 days ago for a year: Namecheap's list says it runs out in about 20 days.
      const start = Date.now();
      fakes.namecheap.state.domains.get(expiring)!.created = start - 345 * DAY;
      fakes.cloudflare.addWorkerDomain(`go.${expiring}`, "trackyard", expiring);
      const a = await insertDomain({ domain: expiring, subdomain: "go", status: "active" });
      const b = await insertDomain({ domain: detached, subdomain: "t", status: "active" });

      const check = (at: number) => checkDomainHealth({ ...domainDeps(fakes), now: () => at });
      expect(await check(start)).toEqual({ checked: 2, problems: [] });
      expect((await rowOf(a.id))!).toMatchObject({ detachedAt: null, healthCheckedAt: start });
      // The list gives the day: that day's start in UTC, just under 20 days away.
      expect((await rowOf(a.id))!.expiresAt).toBe(Math.floor((start + 20 * DAY) / DAY) * DAY);
      expect((await rowOf(b.id))!).toMatchObject({ detachedAt: start });

      const r = recorder();
      await runBuiltinAlerts(db(), r.deliver, start, env.CLICK_SHARDS);
      expect(r.sent.map((m) => m.title).sort()).toEqual([`${expiring} expires in 20 days`, `t.${detached} detached from the Worker`]);
      expect(r.sent.find((m) => m.title.includes("detached"))).toMatchObject({ severity: "critical", link: "/domains" });

      // The next cron runs see the same expiry and the same detachment: nothing new, and no call
      // is made again before six hours.
      const calls = fakes.calls.length;
      expect(await check(start + 15 * 60_000)).toEqual({ checked: 0, problems: [] });
      expect(fakes.calls.length).toBe(calls);
      await runBuiltinAlerts(db(), r.deliver, start + 15 * 60_000, env.CLICK_SHARDS);
      expect(r.sent).toHaveLength(2);

      // Attached again (Redeploy Worker): cleared. Detached once more later: a new alert.
      fakes.cloudflare.addWorkerDomain(`t.${detached}`, "trackyard", detached);
      const later = start + HEALTH_EVERY_MS + 60_000;
      await check(later);
      expect((await rowOf(b.id))!.detachedAt).toBeNull();
      for (const [id, d] of fakes.cloudflare.state.workerDomains) if (d.hostname === `t.${detached}`) fakes.cloudflare.state.workerDomains.delete(id);
      const later2 = later + HEALTH_EVERY_MS + 60_000;
      await check(later2);
      await runBuiltinAlerts(db(), r.deliver, later2, env.CLICK_SHARDS);
      expect(r.sent.filter((m) => m.title === `t.${detached} detached from the Worker`)).toHaveLength(2);

      // Renewed for a year: the new date is past 30 days, and nothing fires for it.
      fakes.namecheap.state.domains.get(expiring)!.created = start + 20 * DAY;
      const later3 = later2 + HEALTH_EVERY_MS + 60_000;
      await check(later3);
      await runBuiltinAlerts(db(), r.deliver, later3, env.CLICK_SHARDS);
      expect(r.sent.filter((m) => m.title.startsWith(expiring))).toHaveLength(1);
    },
  );

  it("a failing Cloudflare or Namecheap answer keeps the last readings and says why", { timeout: 30_000 }, async () => {
    const name = freshName("quiet");
    const fakes = createDomainFakes({ namecheap: { owned: [name] } });
    const row = await insertDomain({ domain: name, subdomain: "go", status: "active", expiresAt: 123, detachedAt: 456 });
    fakes.cloudflare.failNext({ kind: "status", status: 403, errors: [{ code: 10000, message: "Authentication error" }] });
    const deps = domainDeps(fakes);
    const result = await checkDomainHealth({ ...deps, env: { ...deps.env, NAMECHEAP_API_KEY: "wrong" }, now: () => Date.now() });
    expect(result.checked).toBeGreaterThanOrEqual(1);
    expect(result.problems[0]).toMatch(/^Cloudflare: /);
    expect(result.problems.some((p) => p.startsWith(`${name}: `))).toBe(true);
    expect(await rowOf(row.id)).toMatchObject({ expiresAt: 123, detachedAt: 456 });
  });

  it("reads Namecheap's list dates", () => {
    expect(listDate("11/26/2026")).toBe(Date.UTC(2026, 10, 26));
    expect(listDate("02/30/2026")).toBeNull();
    expect(listDate(undefined)).toBeNull();
  });
});
