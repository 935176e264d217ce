import { Bot, Download, LogOut, MousePointerClick, Percent } from "lucide-react";
import { memo, useId, useMemo, useState } from "react";
import { Instant, ZoneOfColumn } from "@/components/instant";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, StatCard } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { CopyLinkButton } from "@/components/ui/copy-link-button";
import { DateRangePicker } from "@/components/ui/date-range-picker";
import { EmptyState, PageHeader } from "@/components/ui/page";
import { Pagination } from "@/components/ui/pagination";
import { Select } from "@/components/ui/select";
import { QueryRows, Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { useReportDays } from "@/lib/report-days";
import { useSearchState } from "@/lib/url-state";
import {
  ALL,
  exportUrl,
  useCampaignChoices,
  useClickFacets,
  useClickLog,
  useClickRetention,
  useClicksPipeline,
  useRefusedClicks,
  type Click,
  type VisitorFilters,
} from "./api";
import { DelayNotice } from "./components/delay-notice";
import { RefusedClicksCard } from "./components/refused-clicks";
import { RetentionNotice } from "./components/retention-notice";
import { VisitorFiltersRow } from "./components/visitor-filters";
import { countryLabel } from "../../../../worker/src/lib/country";
import { clicksSearchDefaults, clicksSearchSchema, clicksStateOf } from "./url-state";
import { agentLabel } from "./visitor";

/** An id shown whole (TikTok's ids share their first digits), with a copy button. */
function CopyableId({ id, what, short = false }: { id: string; what: string; short?: boolean }) {
  return (
    <span className="flex items-center gap-0.5">
      <span className="tabular whitespace-nowrap font-mono text-xs text-slate-500" title={id}>
        {short ? `${id.slice(0, 8)}...` : id}
      </span>
      <CopyButton variant="ghost" text={id} label={`Copy ${what} ${id}`} description={id} className="size-6 text-slate-500 [&_svg]:size-3.5" />
    </span>
  );
}

function AdField({ id, name, what }: { id: string | null; name: string | null; what: string }) {
  if (!id && !name) return <span className="text-slate-400">—</span>;
  return (
    <div className="grid leading-tight">
      {name ? (
        <span className="max-w-48 truncate text-slate-800" title={name}>
          {name}
        </span>
      ) : null}
      {id ? <CopyableId id={id} what={what} /> : null}
    </div>
  );
}

function Visitor({ click }: { click: Click }) {
  const agent = agentLabel(click);
  const place = [click.city, click.country].filter(Boolean).join(", ");
  if (!place && !agent) return <span className="text-slate-400">—</span>;
  return (
    <div className="grid min-w-40 max-w-52 leading-tight">
      {place ? (
        <span className="truncate text-slate-800" title={[click.city, click.region, click.country && countryLabel(click.country)].filter(Boolean).join(", ")}>
          {place}
        </span>
      ) : null}
      {agent ? (
        <span className="truncate text-xs text-slate-500" title={click.userAgent ?? undefined}>
          {agent}
        </span>
      ) : null}
      {click.asOrganization ? (
        <span className="truncate text-xs text-slate-500" title={click.asn ? `AS${click.asn}` : undefined}>
          {click.asOrganization}
        </span>
      ) : null}
    </div>
  );
}

/**
 * "Bot", and why, on a tap or a key press: a phone has no hover to show a title, so the reason
 * opens under the badge (a button, so the keyboard reaches it too).
 */
function BotBadge({ reason }: { reason: string | null }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <>
      <button
        type="button"
        aria-expanded={open}
        aria-controls={id}
        aria-label={`Bot: ${reason ?? "flagged"}`}
        title={reason ?? undefined}
        onClick={() => setOpen((o) => !o)}
        className="rounded-full focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-brand-600"
      >
        <Badge variant="warning">Bot</Badge>
      </button>
      {open ? (
        <span id={id} className="max-w-40 text-xs text-amber-800">
          {reason ?? "Flagged as a bot"}
        </span>
      ) : null}
    </>
  );
}

/**
 * Memoised: the screen draws again as each of its other calls answers (filters, totals, notices)
 * and every 10 s. A row's click keeps its identity while the answer holds it unchanged at the same
 * place (the query cache shares unchanged parts of an answer), so those draws skip the rows; a
 * new click at the top of the page moves every row, and they are drawn again.
 */
const ClickRow = memo(function ClickRow({ click }: { click: Click }) {
  return (
    <TableRow>
      {/* First, so it stays pinned while the other columns scroll: which campaign, which click. */}
      <TableCell className="text-xs">
        <div className="max-w-32 truncate text-sm text-slate-900 sm:max-w-44" title={click.campaign ?? undefined}>
          {click.campaign ?? "Unknown"}
        </div>
        <CopyableId id={click.clickId} what="click ID" short />
        {click.ttclid ? (
          <div className="max-w-32 truncate text-slate-500" title={click.ttclid}>
            ttclid {click.ttclid.slice(0, 10)}…
          </div>
        ) : null}
      </TableCell>
      <TableCell>
        <div className="flex flex-col items-start gap-1">
          {click.exitedAt ? <Badge variant="success">Exited</Badge> : <Badge variant="secondary">No Exit</Badge>}
          {click.bot ? <BotBadge reason={click.botReason} /> : null}
        </div>
      </TableCell>
      <TableCell className="tabular whitespace-nowrap text-xs">
        <div>
          <Instant at={click.clickedAt} />
        </div>
        {click.exitedAt ? (
          <div className="text-emerald-700">
            Exit <Instant at={click.exitedAt} />
          </div>
        ) : null}
      </TableCell>
      <TableCell>
        <Visitor click={click} />
      </TableCell>
      <TableCell>
        <AdField id={click.tiktokCampaignId} name={click.campaignName} what="TikTok campaign ID" />
      </TableCell>
      <TableCell>
        <AdField id={click.tiktokAdGroupId} name={click.adGroupName} what="ad group ID" />
      </TableCell>
      <TableCell>
        <AdField id={click.tiktokCreativeId} name={click.creativeName} what="ad ID" />
      </TableCell>
      <TableCell className="whitespace-nowrap">{click.placement || "—"}</TableCell>
      <TableCell className="tabular whitespace-nowrap text-xs">{click.ipAddress || "—"}</TableCell>
    </TableRow>
  );
});

export default function ClicksScreen() {
  // The range, campaign, visitor filters and page live in the URL (refresh, Back, a pasted link).
  const days = useReportDays();
  const defaults = useMemo(() => clicksSearchDefaults(days.todayDay), [days.todayDay]);
  const { value: search, update } = useSearchState(clicksSearchSchema, defaults);
  const { range, campaignId, visitors, page } = clicksStateOf(search);
  const setPage = (p: number) => update({ page: p });
  // Any other change starts again at the first page.
  const setVisitors = (patch: Partial<VisitorFilters>) =>
    update({ ...Object.fromEntries(Object.entries(patch).map(([k, v]) => [k, v === ALL ? null : v])), page: null });
  const log = useClickLog(range, campaignId, visitors, page);
  const choices = useCampaignChoices(range);
  const facets = useClickFacets(range);
  const retention = useClickRetention(range);
  const refused = useRefusedClicks(range, campaignId);
  const pipeline = useClicksPipeline();
  const data = log.data;
  const rows = data?.clicks ?? [];

  return (
    <>
      <PageHeader
        title="Click Log"
        description="Every tracked click, newest first. Refreshes every 10 seconds."
        actions={
          <>
            <DateRangePicker value={range} onChange={(r) => update({ startDate: r.startDate, endDate: r.endDate, page: null })} />
            <Select
              aria-label="Campaign"
              className="w-48"
              value={campaignId}
              onValueChange={(v) => update({ campaignId: v === ALL ? null : v, page: null })}
              options={[
                { value: "all", label: "All Campaigns" },
                ...(choices.data ?? []).map((c) => ({ value: String(c.campaignId), label: c.campaignName ?? `Campaign ${c.campaignId}` })),
              ]}
            />
            <CopyLinkButton />
            <Button asChild variant="secondary">
              <a href={exportUrl(range, campaignId, visitors)} download>
                <Download />
                Download CSV
              </a>
            </Button>
          </>
        }
      />
      <div className="grid grid-cols-1 gap-6">
        <DelayNotice pipeline={pipeline.data} />
        <VisitorFiltersRow value={visitors} facets={facets.data} onChange={setVisitors} />
        {/* Two a row on a phone too, so the first click is on the first screen. */}
        <div className="grid grid-cols-2 gap-4 lg:grid-cols-4">
          <StatCard label="Total Clicks" icon={<MousePointerClick />} value={data ? data.total.toLocaleString("en-US") : "—"} />
          <StatCard label="Exit Clicks" icon={<LogOut />} value={data ? data.exitClicks.toLocaleString("en-US") : "—"} />
          <StatCard label="Lander CTR" icon={<Percent />} value={data ? `${data.ctr.toFixed(2)}%` : "—"} note="Exit clicks / clicks" />
          <StatCard
            label="Bot Clicks"
            icon={<Bot />}
            value={data ? data.botClicks.toLocaleString("en-US") : "—"}
            note={data && data.total ? `${((data.botClicks / data.total) * 100).toFixed(2)}% of these clicks` : "Crawlers, ad reviewers, preloaders"}
          />
        </div>
        <RetentionNotice retention={retention.data} />
        <RefusedClicksCard refused={refused.data} />
        <Card>
          <Table aria-label="Click log">
            <TableHeader>
              <TableRow>
                <TableHead>Campaign / Click ID</TableHead>
                <TableHead>Status</TableHead>
                <TableHead>
                  Clicked At
                  <ZoneOfColumn />
                </TableHead>
                <TableHead>Visitor</TableHead>
                <TableHead>TikTok Campaign</TableHead>
                <TableHead>Ad Group</TableHead>
                <TableHead>Creative</TableHead>
                <TableHead>Placement</TableHead>
                <TableHead>IP Address</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              <QueryRows
                query={log}
                rows={rows}
                colSpan={9}
                loading="Loading clicks..."
                failed="Failed to fetch clicks"
                emptyState={<EmptyState icon={<MousePointerClick />} title="No clicks found for the selected filters" />}
              >
                {(c) => <ClickRow key={c.clickId} click={c} />}
              </QueryRows>
            </TableBody>
          </Table>
          {data ? <Pagination page={page} pageSize={data.pageSize} total={data.total} onPageChange={setPage} noun="clicks" /> : null}
        </Card>
      </div>
    </>
  );
}
