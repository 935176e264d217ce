import { useQuery } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import { api, unwrap } from "@/lib/api";
import { formatNumber } from "@/lib/format";
import { useReportTime } from "@/lib/report-time";

/** What deleting a lander, a campaign or an offer takes along or changes (GET /api/{landers,campaigns,offers}/:id/deletion-impact). */
export type DeletionImpact = InferResponseType<(typeof api.campaigns)[":id"]["deletion-impact"]["$get"], 200>;

const impactCalls = {
  landers: (id: string) => api.landers[":id"]["deletion-impact"].$get({ param: { id } }),
  campaigns: (id: string) => api.campaigns[":id"]["deletion-impact"].$get({ param: { id } }),
  offers: (id: string) => api.offers[":id"]["deletion-impact"].$get({ param: { id } }),
};

/**
 * What deleting `item` would take along, for its confirmation: read fresh each time the
 * confirmation opens (nothing while `item` is null). Keyed under the resource's list, so a change
 * to the list drops it.
 */
export function useDeletionImpact(resource: keyof typeof impactCalls, item: { id: number } | null) {
  const id = item?.id ?? 0;
  return useQuery({
    queryKey: [resource, id, "deletion-impact"],
    queryFn: () => unwrap(impactCalls[resource](String(id))),
    enabled: item !== null,
    staleTime: 0,
    gcTime: 0,
  });
}

interface ImpactQuery {
  isPending: boolean;
  isError: boolean;
  error: Error | null;
  data: DeletionImpact | undefined;
}

const plural = (n: number, one: string, many = `${one}s`) => `${formatNumber(n)} ${n === 1 ? one : many}`;
/** Names shown before "and N more": a lander's campaigns can be many. */
const NAMES_SHOWN = 5;

function campaignList(impact: DeletionImpact) {
  const names = impact.campaigns.slice(0, NAMES_SHOWN).map((c) => `${c.name} (${plural(c.clicks, "click")})`);
  const more = impact.campaigns.length - NAMES_SHOWN;
  return more > 0 ? `${names.join(", ")} and ${more} more` : names.join(", ");
}

/** The days of the first and last click, in the report time zone like every day of the stats. */
function history(impact: DeletionImpact, day: (iso: string) => string) {
  if (!impact.firstClickAt || !impact.lastClickAt) return null;
  const first = day(impact.firstClickAt);
  const last = day(impact.lastClickAt);
  return first === last ? `on ${first}` : `from ${first} to ${last}`;
}

/**
 * The confirmation's account of a cascade, from the server's counts: which campaigns go, how many
 * clicks, and the days of stats history they carry; for an offer, which campaigns lose it (they
 * stay, without an exit destination). Said before anything is deleted.
 */
export function DeletionImpactSummary({
  name,
  kind,
  impact,
  consequence,
}: {
  name: string;
  kind: "lander" | "campaign" | "offer";
  impact: ImpactQuery;
  consequence: string;
}) {
  const { day } = useReportTime();
  if (impact.isPending) return <p>Counting what goes with {name}...</p>;
  if (impact.isError || !impact.data) {
    return (
      <>
        <p>
          Could not count what goes with {name}
          {impact.error?.message ? ` (${impact.error.message})` : ""}.
        </p>
        <p>{consequence}</p>
      </>
    );
  }
  const data = impact.data;
  const days = history(data, day);
  if (kind !== "campaign" && data.campaigns.length === 0)
    return (
      <p>
        No campaign uses {name}: only the {kind} is deleted.
      </p>
    );
  if (kind === "offer") {
    return (
      <>
        <p>Deleting {name} changes:</p>
        <ul className="list-disc space-y-1 pl-5" aria-label={`Changed by deleting ${name}`}>
          <li>
            {plural(data.campaigns.length, "campaign")} using it, left without an offer: {campaignList(data)}
          </li>
        </ul>
        <p>{consequence}</p>
      </>
    );
  }
  return (
    <>
      <p>Deleting {name} also deletes:</p>
      <ul className="list-disc space-y-1 pl-5" aria-label={`Deleted with ${name}`}>
        {kind === "lander" ? (
          <li>
            {plural(data.campaigns.length, "campaign")} using it: {campaignList(data)}
          </li>
        ) : null}
        <li>
          {data.clicks === 0
            ? kind === "lander"
              ? "Their tracking links (no clicks recorded yet)"
              : "Its tracking link (no clicks recorded yet)"
            : `${plural(data.clicks, "recorded click")} and their exits`}
        </li>
        {days ? (
          <li>
            {kind === "lander" ? "Their" : "Its"} stats history: link clicks, exit clicks and lander CTR {days}
          </li>
        ) : null}
      </ul>
      <p>{consequence}</p>
    </>
  );
}
