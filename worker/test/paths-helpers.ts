/** What the traffic-distribution tests share: a visitor's request, a campaign's world made through the API, a paths save. */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../src/index";
import type { PutPathsInput } from "../src/schemas/paths";
import { bodyOf, clicksWritten, client, idParam, type TestUser, uniqueName } from "./helpers";

export const HOST = "https://trk.paths.test";
export const WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";

export interface Visitor {
  ip?: string;
  ua?: string;
  cf?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/**
 * A visitor's request through the Worker's fetch: its answer, and `written`, which settles once
 * the request's background work (its click batch, its exit) is done.
 */
export async function send(path: string, { ip = "203.0.113.5", ua = WINDOWS, cf, headers = {} }: Visitor = {}) {
  const ctx = createExecutionContext();
  const request = new Request(`${HOST}${path}`, {
    redirect: "manual",
    headers: { "cf-connecting-ip": ip, "user-agent": ua, ...headers },
    ...(cf ? { cf } : {}),
  });
  const res = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, env, ctx);
  return { res, written: waitOnExecutionContext(ctx).then(() => clicksWritten()) };
}

/** A visitor's request through the Worker's fetch, its background writes awaited. */
export async function visit(path: string, who: Visitor = {}) {
  const { res, written } = await send(path, who);
  await written;
  return res;
}

/** Landers, offers and a campaign made through the API, as an admin would. */
export async function world(admin: TestUser, { landers = 2, offers = 2 } = {}) {
  const api = client(admin);
  const tag = uniqueName("w");
  const landerIds: number[] = [];
  for (let i = 0; i < landers; i++) {
    const body = await bodyOf(await api.landers.$post({ json: { name: `${tag} LP${i}`, url: `https://lp${i}.${tag}.test/page` } }), 201);
    landerIds.push(body.id);
  }
  const offerIds: number[] = [];
  for (let i = 0; i < offers; i++) {
    const body = await bodyOf(await api.offers.$post({ json: { name: `${tag} Offer${i}`, url: `https://offer${i}.${tag}.test/go` } }), 201);
    offerIds.push(body.id);
  }
  const campaign = await bodyOf(
    await api.campaigns.$post({ json: { name: `${tag} campaign`, landerId: landerIds[0]!, offerId: offerIds[0]!, bhToggle: true } }),
    201,
  );
  return { api, tag, landers: landerIds, offers: offerIds, campaignId: campaign.id };
}

export type Paths = PutPathsInput["paths"];
export const put = (api: ReturnType<typeof client>, campaignId: number, paths: Paths) =>
  api.campaigns[":id"].paths.$put({ ...idParam(campaignId), json: { paths } });
