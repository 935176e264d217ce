/**
 * For the domain automation tests: a Worker env with Namecheap and Cloudflare configured against
 * the fakes (built explicitly, so a developer's .dev.vars never sends a test to a real account),
 * the fakes behind one fetch, and the deps the domain steps take (fakes, recorded waits, short
 * timeouts).
 */
import { env } from "cloudflare:workers";
import { expect, vi } from "vitest";
import { domains } from "../src/db/schema";
import type { DomainDeps } from "../src/domains/context";
import { resetNamecheapState } from "../src/domains/namecheap";
import type { Bindings } from "../src/env";
import { ApiError } from "../src/lib/errors";
import type { FetchFn } from "../src/integrations/http";
import { createCloudflareFake, type CloudflareFakeOptions } from "./fakes/cloudflare-fake";
import { createNamecheapFake, createRelayFake, ipEchoFake, type NamecheapFakeOptions } from "./fakes/namecheap-fake";
import { db } from "./helpers";

export const NAMECHEAP_URL = "https://api.namecheap.test/xml.response";
export const RELAY_URL = "https://relay.trackyard.test";
export const CLOUDFLARE_URL = "https://api.cloudflare.test/client/v4";
export const RELAY_KEY = "relay-shared-secret-0123456789";
export const RELAY_IP = "198.51.100.20";

const UNSET: Partial<Bindings> = {
  NAMECHEAP_API_USER: undefined,
  NAMECHEAP_API_KEY: undefined,
  NAMECHEAP_USERNAME: undefined,
  NAMECHEAP_CLIENT_IP: undefined,
  NAMECHEAP_PROXY: undefined,
  NAMECHEAP_RELAY_KEY: undefined,
  NAMECHEAP_API_URL: undefined,
  CLOUDFLARE_API_TOKEN: undefined,
  CLOUDFLARE_ACCOUNT_ID: undefined,
  CLOUDFLARE_API_URL: undefined,
  WORKER_NAME: undefined,
};

export function domainEnv(overrides: Partial<Bindings> = {}): Bindings {
  return {
    ...(env as Bindings),
    ...UNSET,
    NAMECHEAP_API_URL: NAMECHEAP_URL,
    NAMECHEAP_API_USER: "trackyard",
    NAMECHEAP_API_KEY: "namecheap-test-key",
    NAMECHEAP_CLIENT_IP: "203.0.113.7",
    CLOUDFLARE_API_URL: CLOUDFLARE_URL,
    CLOUDFLARE_API_TOKEN: "cloudflare-test-token",
    CLOUDFLARE_ACCOUNT_ID: "0123456789abcdef0123456789abcdef",
    ...overrides,
  };
}

export const unconfiguredDomainEnv = (): Bindings => ({ ...(env as Bindings), ...UNSET });

export function createDomainFakes(options: { namecheap?: NamecheapFakeOptions; cloudflare?: CloudflareFakeOptions } = {}) {
  resetNamecheapState();
  const namecheap = createNamecheapFake(options.namecheap);
  // Cloudflare activates a zone once Namecheap really points the domain at its nameservers.
  const cloudflare = createCloudflareFake({
    delegated: (name, ns) => [...namecheap.nameserversOf(name)].sort().join() === [...ns].sort().join(),
    ...options.cloudflare,
  });
  const relay = createRelayFake({ key: RELAY_KEY, egressIp: RELAY_IP, upstream: namecheap.handle });
  const echo = ipEchoFake(namecheap.state.callerIp);
  const calls: string[] = [];
  const fetch: FetchFn = async (input, init) => {
    const request = new Request(input, init);
    calls.push(`${request.method} ${request.url}`);
    const origin = new URL(request.url).origin;
    if (origin === new URL(NAMECHEAP_URL).origin) return namecheap.handle(request);
    if (origin === new URL(CLOUDFLARE_URL).origin) return cloudflare.handle(request);
    if (origin === RELAY_URL) return relay.handle(request);
    if (origin === "https://api.ipify.org") return echo();
    throw new Error(`unexpected external call to ${request.url}`);
  };
  return { namecheap, cloudflare, relay, fetch, calls };
}

export type DomainFakes = ReturnType<typeof createDomainFakes>;

/** The deps of a domain step: the fakes, waits recorded instead of slept, a short timeout. */
export function domainDeps(fakes: DomainFakes, overrides: Partial<DomainDeps> = {}): DomainDeps & { waits: number[] } {
  const waits: number[] = [];
  return {
    db: db(),
    env: domainEnv(),
    fetch: fakes.fetch,
    sleep: async (ms) => {
      waits.push(ms);
    },
    timeoutMs: 300,
    waits,
    ...overrides,
  };
}

/** Routes call the runtime's fetch: the fakes stand in for it there. */
export function routeFetchTo(fakes: DomainFakes) {
  vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => fakes.fetch(input as Request | string | URL, init));
}

let counter = 0;
/** A fresh .xyz name per test (storage is shared within a test file). */
export const freshName = (prefix = "bright") => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}.xyz`;

/** A domain row straight in D1, in the given state (tests only: the product writes through the machine). */
export async function insertDomain(values: Partial<typeof domains.$inferInsert> & { domain: string }) {
  return (
    await db()
      .insert(domains)
      .values({ status: "purchased", ...values })
      .returning()
  )[0]!;
}

export const rowOf = async (id: number) => (await db().query.domains.findFirst({ where: (d, { eq }) => eq(d.id, id) })) ?? null;

/** The ApiError a domain step refuses with (the test fails if it does not). */
export async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}
