import { sql } from "drizzle-orm";
import { Hono } from "hono";
import { audit, diff, fields, named, unlessUnchanged } from "../audit/record";
import {
  deleteCampaign,
  getCampaign,
  getCampaignView,
  insertCampaign,
  listCampaigns,
  listTrackingDomains,
  referenceNames,
  referenceProblems,
  updateCampaign,
  type CampaignValues,
  type CampaignViewRow,
} from "../db/queries/campaigns";
import { campaignDeletionImpact } from "../db/queries/deletion-impact";
import { defaultPathOf, followCampaignDialog } from "../db/queries/paths";
import { readSettings } from "../db/queries/settings";
import type { AppEnv, Db } from "../env";
import { isForeignKeyViolation } from "../lib/db-errors";
import { ApiError, badRequest, conflict, notFound } from "../lib/errors";
import { iso } from "../lib/time";
import { validate } from "../lib/validate";
import { createCampaignSchema, updateCampaignSchema } from "../schemas/campaigns";
import { idParam } from "../schemas/common";
import { invalidateTrackedCampaigns } from "../tracking/campaign-cache";
import { campaignLinks, domainBase, exitBase, redirectBase, type DomainChoice, type LinkSettings } from "../tracking/links";
import { objectClickSpans } from "../tracking/click-log";

const domainOf = (row: CampaignViewRow): DomainChoice | null =>
  row.domain !== null && row.domainStatus !== null ? { domain: row.domain, subdomain: row.subdomain, status: row.domainStatus } : null;

const hostOf = (base: string | null) => (base === null ? null : new URL(base).host);

/** A campaign as the screens use it: names and every link resolved, so no second lookup is needed. */
function campaignJson(row: CampaignViewRow, settings: LinkSettings) {
  const domain = domainOf(row);
  return {
    id: row.id,
    name: row.name,
    landerId: row.landerId,
    landerName: row.landerName,
    offerId: row.offerId,
    offerName: row.offerName,
    domainId: row.domainId,
    trackingDomain: hostOf(domainBase(domain)),
    bhToggle: row.bhToggle,
    mediaBuyer: row.mediaBuyer,
    sparkId: row.sparkId,
    createdAt: iso(row.createdAt),
    ...campaignLinks(row, domain, settings),
  };
}

async function oneCampaign(db: Db, id: number) {
  const [row, settings] = await Promise.all([getCampaignView(db, id), readSettings(db)]);
  if (!row) throw notFound("Campaign not found");
  return campaignJson(row, settings);
}

async function checkReferences(db: Db, refs: Parameters<typeof referenceProblems>[1]) {
  const problems = await referenceProblems(db, refs);
  if (problems.length) {
    throw new ApiError(
      400,
      problems.length === 1 ? problems[0]!.message : "Some of the chosen items cannot be used",
      problems.map((p) => `${p.field}: ${p.message}`),
    );
  }
}

const LABELS = {
  name: "Name",
  lander: "Lander",
  offer: "Offer",
  domain: "Tracking Domain",
  bhToggle: "BH Toggle",
  mediaBuyer: "Media buyer",
  spark: "Spark",
};

/** A campaign's fields as its audit summary shows them: what it points at by name, with the id ("Lander: Spring LP (#1)"). */
async function described(db: Db, values: CampaignValues) {
  const names = await referenceNames(db, values);
  return {
    name: values.name,
    lander: named(names.lander, values.landerId),
    offer: named(names.offer, values.offerId),
    domain: named(names.domain, values.domainId),
    bhToggle: values.bhToggle,
    mediaBuyer: values.mediaBuyer ?? null,
    spark: named(names.spark, values.sparkId ?? null),
  };
}

/** A lander, offer, domain or spark deleted between the check and the write: still a clear 400, never a 500. */
async function writing<T>(write: Promise<T>) {
  try {
    return await write;
  } catch (err) {
    if (isForeignKeyViolation(err)) throw badRequest("The chosen lander, offer, domain or spark no longer exists");
    throw err;
  }
}

export const campaignRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const db = c.get("db");
    const [rows, settings] = await Promise.all([listCampaigns(db), readSettings(db)]);
    return c.json(
      rows.map((row) => campaignJson(row, settings)),
      200,
    );
  })

  /** For the campaign dialog: the domain choices, and whether the default has a redirect domain. */
  .get("/tracking-domains", async (c) => {
    const db = c.get("db");
    const [domains, settings] = await Promise.all([listTrackingDomains(db), readSettings(db)]);
    const defaultRedirectBase = redirectBase(null, settings);
    return c.json(
      {
        defaultRedirectBase,
        exitBase: exitBase(defaultRedirectBase, settings),
        domains: domains.map((d) => ({ id: d.id, domain: d.domain, subdomain: d.subdomain, host: hostOf(domainBase(d)) })),
      },
      200,
    );
  })

  .post("/", validate("json", createCampaignSchema), async (c) => {
    const db = c.get("db");
    const input = c.req.valid("json");
    await checkReferences(db, input);
    const values = {
      name: input.name,
      landerId: input.landerId,
      offerId: input.offerId ?? null,
      domainId: input.domainId ?? null,
      bhToggle: input.bhToggle,
      mediaBuyer: input.mediaBuyer ?? null,
      sparkId: input.sparkId ?? null,
    };
    const [[created]] = await writing(
      db.batch([
        insertCampaign(db, values),
        audit(c, { action: "campaign.create", kind: "campaign", id: sql`last_insert_rowid()`, summary: fields(await described(db, values), LABELS) }),
      ]),
    );
    const { id } = created!;
    // Unknown ids are cached too: this id may have been asked for before it existed.
    invalidateTrackedCampaigns();
    return c.json(await oneCampaign(db, id), 201);
  })

  .patch("/:id", validate("param", idParam), validate("json", updateCampaignSchema), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const input = c.req.valid("json");
    await checkReferences(db, input);
    const before = await getCampaign(db, id);
    if (!before) throw notFound("Campaign not found");
    // A patch of the BH Toggle alone is the switch the team flips most: its own action.
    const action = Object.keys(input).every((k) => k === "bhToggle") ? "campaign.bh_toggle" : "campaign.update";
    const change = diff(await described(db, before), await described(db, { ...before, ...input }), LABELS);
    // With paths of its own, the dialog's lander and offer are its default path's (docs/traffic-distribution.md).
    const defaultPath = input.landerId !== undefined || input.offerId !== undefined ? await defaultPathOf(db, id) : undefined;
    const follow = defaultPath ? followCampaignDialog(db, defaultPath, input) : { statements: [] };
    if ("refused" in follow) throw conflict(follow.refused);
    const [updated] = await writing(
      db.batch([
        updateCampaign(db, id, input),
        ...follow.statements,
        ...unlessUnchanged(change, (summary) => audit(c, { action, kind: "campaign", id, summary: `${before.name}: ${summary}` }, { ifChanged: true })),
      ]),
    );
    if (!updated.length) throw notFound("Campaign not found");
    invalidateTrackedCampaigns();
    return c.json(await oneCampaign(db, id), 200);
  })

  /** What deleting it takes along (its clicks and their stats history), for the confirmation to name. */
  .get("/:id/deletion-impact", validate("param", idParam), async (c) => {
    const db = c.get("db");
    const impact = await campaignDeletionImpact(db, c.req.valid("param").id, (kept) => objectClickSpans({ db, shards: c.env.CLICK_SHARDS }, kept));
    if (impact.campaigns.length === 0) throw notFound("Campaign not found");
    return c.json(impact, 200);
  })

  .delete("/:id", validate("param", idParam), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const before = await getCampaign(db, id);
    if (!before) throw notFound("Campaign not found");
    const [deleted] = await db.batch([
      deleteCampaign(db, id),
      audit(c, { action: "campaign.delete", kind: "campaign", id, summary: fields(await described(db, before), LABELS) }, { ifChanged: true }),
    ]);
    if (!deleted.length) throw notFound("Campaign not found");
    invalidateTrackedCampaigns();
    return c.json({ ok: true }, 200);
  });
