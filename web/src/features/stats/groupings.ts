import type { GroupBy } from "./api";

/** The grouping tabs (docs/screens.md §2), Campaigns first and by default. */
export const TABS = [
  { value: "campaign", label: "Campaigns", nameLabel: "Campaign" },
  { value: "spark", label: "Sparks", nameLabel: "Spark" },
  { value: "offer", label: "Offers", nameLabel: "Offer" },
  { value: "lander", label: "Landers", nameLabel: "Lander" },
  // Where traffic distribution sent the visitor: the path, and the lander with the offer.
  { value: "path", label: "Paths", nameLabel: "Path" },
  { value: "landerOffer", label: "Lander × Offer", nameLabel: "Lander × Offer" },
  { value: "mediaBuyer", label: "Media Buyer", nameLabel: "Media Buyer" },
  // Who clicked: Cloudflare's country and the parsed user agent of our clicks.
  { value: "country", label: "Country", nameLabel: "Country" },
  { value: "device", label: "Device", nameLabel: "Device" },
  { value: "os", label: "OS", nameLabel: "OS" },
  { value: "browser", label: "Browser", nameLabel: "Browser" },
] as const satisfies readonly { value: GroupBy; label: string; nameLabel: string }[];
export type Tab = (typeof TABS)[number]["value"];

/**
 * The Variables (Tracking Fields) select (docs/screens.md §2): a chosen field groups the report by that
 * ad-platform value of our clicks instead of the tab's grouping.
 */
export const VARIABLES = [
  { value: "none", label: "No Variable Selected" },
  { value: "tiktokCampaignId", label: "Campaign ID" },
  { value: "tiktokAdGroupId", label: "Ad Group ID" },
  { value: "tiktokCreativeId", label: "Ad ID" },
  { value: "placement", label: "Placement" },
  { value: "campaignName", label: "Campaign Name" },
  { value: "adGroupName", label: "Ad Group Name" },
  { value: "creativeName", label: "Ad Name" },
] as const satisfies readonly { value: GroupBy | "none"; label: string }[];
export type Variable = (typeof VARIABLES)[number]["value"];

export const groupingOf = (tab: Tab, variable: Variable): GroupBy => (variable === "none" ? tab : variable);

/** What the Name column holds: "Campaign", "Ad ID", ... */
export const nameLabelOf = (tab: Tab, variable: Variable) =>
  variable === "none" ? TABS.find((t) => t.value === tab)!.nameLabel : VARIABLES.find((v) => v.value === variable)!.label;
