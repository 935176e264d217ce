import type { DomainStatus } from "../db/schema";
import { normaliseBaseUrl } from "../schemas/settings";

/** TikTok's macros on our query names (AID is the ad group, CID the ad). */
export const TRACKING_QUERY =
  "cid=__CAMPAIGN_ID__&ad=__AID__&cr=__CID__&plc=__PLACEMENT__&cname=__CAMPAIGN_NAME__&aname=__AID_NAME__&crname=__CID_NAME__&ttclid=__CLICKID__";

export interface DomainChoice {
  domain: string;
  subdomain: string | null;
  status: DomainStatus;
}

export interface LinkSettings {
  redirect_domain: string;
  global_exit_domain: string;
}

/** `https://sub.domain` for a domain that can carry tracking traffic; null otherwise. */
export function domainBase(domain: DomainChoice | null): string | null {
  if (!domain || domain.status !== "active" || !domain.subdomain) return null;
  return normaliseBaseUrl(`${domain.subdomain}.${domain.domain}`);
}

/** Where ads point: the campaign's active domain, else the redirect_domain setting. */
export const redirectBase = (domain: DomainChoice | null, settings: LinkSettings) => domainBase(domain) ?? normaliseBaseUrl(settings.redirect_domain);

/** Where landers send visitors on: global_exit_domain, else the redirect base. */
export const exitBase = <Fallback extends string | null>(redirect: Fallback, settings: LinkSettings): string | Fallback =>
  normaliseBaseUrl(settings.global_exit_domain, { stripClick: true }) ?? redirect;

export interface CampaignLinks {
  trackingUrl: string | null;
  exitUrl: string | null;
  exitScriptUrl: string | null;
  /** The tag to paste into the lander; null without an offer (nothing to exit to) or without a base. */
  exitScript: string | null;
}

/** Every link the campaign screens show; all null when no redirect base can be determined. */
export function campaignLinks(campaign: { id: number; offerId: number | null }, domain: DomainChoice | null, settings: LinkSettings): CampaignLinks {
  const redirect = redirectBase(domain, settings);
  const exit = exitBase(redirect, settings);
  const exitScriptUrl = redirect && `${redirect}/exit-tracker.js`;
  return {
    trackingUrl: redirect && `${redirect}/r/${campaign.id}?${TRACKING_QUERY}`,
    exitUrl: exit && `${exit}/click`,
    exitScriptUrl,
    exitScript: exitScriptUrl && campaign.offerId !== null ? `<script src="${exitScriptUrl}" async></script>` : null,
  };
}
