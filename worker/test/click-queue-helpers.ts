import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { insertCampaign } from "../src/db/queries/campaigns";
import { insertLander } from "../src/db/queries/landers";
import { insertOffer } from "../src/db/queries/offers";
import worker from "../src/index";
import { DEFAULT_UTM_TEMPLATE } from "../src/schemas/offers";
import { db } from "./helpers";

/** The clicks queue's tests (click-queue.test.ts, click-backlog.test.ts): a campaign, visitors, D1 failing. */
const HOST = "https://trk.queue.test";

export async function setup() {
  const lander = await insertLander(db(), { name: "Lander", url: "https://lander.test/lp" }).get();
  const offer = await insertOffer(db(), { name: "Offer", url: "https://offer.test/go", utmTemplate: DEFAULT_UTM_TEMPLATE }).get();
  const campaign = await insertCampaign(db(), { name: "Retried", landerId: lander.id, offerId: offer.id, domainId: null, bhToggle: true }).get();
  return { campaignId: campaign.id, offerId: offer.id };
}

/** A visitor's request through the Worker's fetch; its background work (the send to the queue) goes on (`settled`). */
export async function visit(path: string, ip: string, bindings: typeof env = env) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${HOST}${path}`, { headers: { "cf-connecting-ip": ip }, redirect: "manual" }), bindings, ctx);
  return { res, settled: waitOnExecutionContext(ctx) };
}
export const clickIdFrom = (res: Response) => new URL(res.headers.get("location")!).searchParams.get("clickId")!;

/** How many of these clicks D1 holds, and how many rows they take (a click written twice would be two). */
export async function stored(ids: string[]) {
  const [row] = await db().all<{ rows: number; distinct: number }>(sql`
    select count(*) as rows, count(distinct click_id) as "distinct" from clicks where click_id in (select value from json_each(${JSON.stringify(ids)}))`);
  return row!;
}

/** Waits until `check` holds (polling D1), or fails after `timeoutMs`. */
export async function until(check: () => Promise<boolean>, timeoutMs: number) {
  const giveUpAt = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > giveUpAt) throw new Error(`still not so after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A statement that changes rows (D1PreparedStatement keeps its SQL as `statement`). */
const writes = (statement: unknown) => /^\s*(insert|update|delete|replace)\b/i.test(String((statement as { statement?: unknown }).statement ?? ""));

/**
 * D1 down for everyone in this isolate: the Worker's requests, its queue consumer, the test itself.
 * The D1 binding's own classes are patched (its queries fail as a lost connection does) for
 * `ms`, from start(); restore() puts them back. With `writesOnly`, reads go through and every
 * statement that changes rows fails (a batch with one fails whole): a primary refusing writes.
 */
export function d1Outage({ writesOnly = false } = {}) {
  const writesIn = (self: unknown, name: string, args: unknown[]) =>
    name === "batch" ? (args[0] as unknown[]).some(writes) : name === "exec" ? writes({ statement: args[0] }) : writes(self);
  const database = Object.getPrototypeOf(env.DB) as Record<string, unknown>;
  const statement = Object.getPrototypeOf(env.DB.prepare("select 1")) as Record<string, unknown>;
  const patched: [Record<string, unknown>, string, unknown][] = [];
  let downFrom = Infinity;
  let downUntil = -Infinity;
  /** Calls until the one that fails (failNth), counted across every patched method. */
  let failIn = 0;
  const down = () => Date.now() >= downFrom && Date.now() < downUntil;
  const patch = (target: Record<string, unknown>, name: string) => {
    const original = target[name] as (...args: unknown[]) => Promise<unknown>;
    patched.push([target, name, original]);
    target[name] = function (this: unknown, ...args: unknown[]) {
      if ((down() && (!writesOnly || writesIn(this, name, args))) || (failIn > 0 && --failIn === 0))
        return Promise.reject(new Error("D1_ERROR: Network connection lost. (the test's outage)"));
      return original.apply(this, args);
    };
  };
  patch(database, "batch");
  patch(database, "exec");
  for (const name of ["first", "all", "run", "raw"]) patch(statement, name);
  return {
    start(ms: number) {
      downFrom = Date.now();
      downUntil = downFrom + ms;
    },
    isDown: down,
    /** The nth D1 call from now fails, once; the ones before and after it go through. */
    failNth(n: number) {
      failIn = n;
    },
    /** Whether the call failNth armed has happened. */
    failed: () => failIn === 0,
    restore() {
      for (const [target, name, original] of patched) target[name] = original;
    },
  };
}
