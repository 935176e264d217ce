import type { InferResponseType } from "hono/client";
import type { api } from "@/lib/api";
import { formatNumber } from "@/lib/format";
import { useReportTime } from "@/lib/report-time";

/** What deleting a lander or a campaign takes along (GET /api/{landers,campaigns}/:id/deletion-impact). */
export type DeletionImpact = InferResponseType<(typeof api.campaigns)[":id"]["deletion-impact"]["$get"], 200>;

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
 * clicks, and the days of stats history they carry. Said before anything is deleted.
 */
export function DeletionImpactSummary({
  name,
  kind,
  impact,
  consequence,
}: {
  name: string;
  kind: "lander" | "campaign";
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
  if (kind === "lander" && data.campaigns.length === 0) return <p>No campaign uses {name}: only the lander is deleted.</p>;
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
