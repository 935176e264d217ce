/**
 * For the performance-data tests: a Worker env with the data-source secrets set (the test
 * Worker has none), the CAKE and TikTok fakes behind one fetch, and calls into the Worker with
 * that env. The env is built explicitly so a developer's .dev.vars can never send a test to a
 * real network.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { Bindings } from "../src/env";
import worker from "../src/index";
import { expect } from "vitest";
import { ExternalApiError, type FetchFn } from "../src/integrations/http";
import { createCakeFake, type CakeFake } from "./fakes/cake-fake";
import { createTikTokFake, type TikTokFake } from "./fakes/tiktok-fake";
import { clicksWritten, ORIGIN, typedClient, type CallOptions } from "./helpers";

export const CAKE_URL = "https://cake.test";
export const TIKTOK_URL = "https://tiktok.test";
export const ADVERTISER = "7000000000001";
export const POSTBACK_TOKEN = "postback-secret-token-0123456789";

const UNSET = {
  CAKE_BASE_URL: undefined,
  CAKE_API_KEY: undefined,
  CAKE_AFFILIATE_ID: undefined,
  TIKTOK_ACCESS_TOKEN: undefined,
  TIKTOK_ADVERTISER_IDS: undefined,
  TIKTOK_BASE_URL: undefined,
  POSTBACK_TOKEN: undefined,
  TIKTOK_EVENTS_ACCESS_TOKEN: undefined,
} satisfies Partial<Bindings>;

/** The test Worker's bindings with every data source configured against the fakes. */
export function configuredEnv(overrides: Partial<Bindings> = {}): Bindings {
  return {
    ...(env as Bindings),
    ...UNSET,
    CAKE_BASE_URL: CAKE_URL,
    CAKE_API_KEY: "cake-test-key",
    CAKE_AFFILIATE_ID: "4242",
    TIKTOK_BASE_URL: TIKTOK_URL,
    TIKTOK_ACCESS_TOKEN: "tiktok-test-token",
    TIKTOK_ADVERTISER_IDS: ADVERTISER,
    POSTBACK_TOKEN,
    ...overrides,
  };
}

/** The test Worker's bindings with no data source configured. */
export const unconfiguredEnv = (): Bindings => ({ ...(env as Bindings), ...UNSET });

/**
 * One visitor's request to a public link (tracking URL, exit link, postback) from a phone at `ip`,
 * redirects not followed, with the configured env; resolves once the work it left behind is done
 * and every click and exit answered so far is in D1.
 */
export async function visitLink(url: string, ip: string) {
  const res = await visitLinkAnswered(url, ip);
  await clicksWritten();
  return res;
}

/**
 * `visitLink` that resolves with the answer, its clicks and exits still on their way to D1 through
 * the clicks queue (docs/tracking.md "Clicks through a queue"): for many visitors at once, which
 * then wait for the queue once (`clicksWritten`) instead of once each.
 */
export async function visitLinkAnswered(url: string, ip: string) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(url, { redirect: "manual", headers: { "cf-connecting-ip": ip, "user-agent": "Mozilla/5.0 (iPhone) Test" } }),
    configuredEnv(),
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

export interface Fakes {
  cake: CakeFake;
  tiktok: TikTokFake;
  /** Routes by host to the fakes; anything else is a test bug. */
  fetch: FetchFn;
  /** Every URL asked for, in order. */
  calls: string[];
}

export function createFakes(): Fakes {
  const cake = createCakeFake();
  const tiktok = createTikTokFake({ advertiserIds: [ADVERTISER] });
  const calls: string[] = [];
  const fetch: FetchFn = async (input, init) => {
    const request = new Request(input, init);
    calls.push(request.url);
    const host = new URL(request.url).origin;
    if (host === CAKE_URL) return cake.handle(request);
    if (host === TIKTOK_URL) return tiktok.handle(request);
    throw new Error(`unexpected external call to ${request.url}`);
  };
  return { cake, tiktok, fetch, calls };
}

/** HTTP options for runSync: the fakes, no waiting between retries. */
export const fakeHttp = (fakes: Fakes) => ({ fetch: fakes.fetch, retryDelaysMs: [], sleep: async () => {} });

/** Like helpers' `call`, but into the Worker with the given bindings. */
export async function callWith(bindings: Bindings, path: string, { method, json, cookie, headers = {} }: CallOptions = {}) {
  const h: Record<string, string> = { ...headers };
  const init: RequestInit = { method: method ?? (json !== undefined ? "POST" : "GET"), headers: h };
  if (json !== undefined) {
    init.body = JSON.stringify(json);
    h["content-type"] ??= "application/json";
  }
  if (cookie) h.cookie = cookie;
  if (init.method !== "GET") h.origin ??= ORIGIN;
  return fetchWith(bindings, new Request(`${ORIGIN}${path}`, init));
}

/** One request into the Worker with these bindings, answered once its background work is done. */
async function fetchWith(bindings: Bindings, request: Request) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(request, bindings, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/**
 * helpers' typed `client` into the Worker with these bindings (a test's own env: fakes' hosts,
 * secrets set or not), as `user` when given.
 */
export const clientWith = (bindings: Bindings, user?: { cookie: string }) => typedClient((request) => fetchWith(bindings, request), user);

/** The ExternalApiError a client call fails with (the test fails if it does not). */
export async function externalFailure(promise: Promise<unknown>): Promise<ExternalApiError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ExternalApiError);
  return err as ExternalApiError;
}
