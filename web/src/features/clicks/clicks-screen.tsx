import { subDays } from "date-fns";
import { Download, LogOut, MousePointerClick, Percent } from "lucide-react";
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, StatCard } from "@/components/ui/card";
import { DateRangePicker } from "@/components/ui/date-range-picker";
import { EmptyState, PageHeader } from "@/components/ui/page";
import { Pagination } from "@/components/ui/pagination";
import { Select } from "@/components/ui/select";
import { QueryRows, Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { toDay, type DayRange } from "@/lib/date-ranges";
import { formatDateTime } from "@/lib/format";
import { exportUrl, useCampaignChoices, useClickLog, useClickRetention, useRefusedClicks, type Click } from "./api";
import { RefusedClicksCard } from "./components/refused-clicks";
import { RetentionNotice } from "./components/retention-notice";

const lastSevenDays = (): DayRange => ({ startDate: toDay(subDays(new Date(), 6)), endDate: toDay(new Date()) });

function AdField({ id, name }: { id: string | null; name: string | null }) {
  if (!id && !name) return <span className="text-slate-400">—</span>;
  return (
    <div className="grid max-w-48 leading-tight">
      {name ? <span className="truncate text-slate-800" title={name}>{name}</span> : null}
      {id ? <span className="tabular truncate text-xs text-slate-500" title={id}>{id}</span> : null}
    </div>
  );
}

function ClickRow({ click }: { click: Click }) {
  return (
    <TableRow>
      <TableCell>
        {click.exitedAt ? <Badge variant="success">Exited</Badge> : <Badge variant="secondary">No Exit</Badge>}
      </TableCell>
      <TableCell className="font-mono text-xs" title={click.clickId}>
        {click.clickId.slice(0, 8)}...
      </TableCell>
      <TableCell className="max-w-40 truncate" title={click.campaign ?? undefined}>
        {click.campaign ?? "Unknown"}
      </TableCell>
      <TableCell className="tabular whitespace-nowrap text-xs">
        <div>{formatDateTime(click.clickedAt)}</div>
        {click.exitedAt ? <div className="text-emerald-700">Exit {formatDateTime(click.exitedAt)}</div> : null}
      </TableCell>
      <TableCell>
        <AdField id={click.tiktokCampaignId} name={click.campaignName} />
      </TableCell>
      <TableCell>
        <AdField id={click.tiktokAdGroupId} name={click.adGroupName} />
      </TableCell>
      <TableCell>
        <AdField id={click.tiktokCreativeId} name={click.creativeName} />
      </TableCell>
      <TableCell className="whitespace-nowrap">{click.placement || "—"}</TableCell>
      <TableCell className="tabular whitespace-nowrap text-xs">{click.ipAddress || "—"}</TableCell>
    </TableRow>
  );
}

export default function ClicksScreen() {
  const [range, setRange] = useState<DayRange>(lastSevenDays);
  const [campaignId, setCampaignId] = useState("all");
  const [page, setPage] = useState(1);
  const log = useClickLog(range, campaignId, page);
  const choices = useCampaignChoices(range);
  const retention = useClickRetention(range);
  const refused = useRefusedClicks(range, campaignId);
  const data = log.data;
  const rows = data?.clicks ?? [];

  return (
    <>
      <PageHeader
        title="Click Log"
        description="Every tracked click, newest first. Refreshes every 10 seconds."
        actions={
          <>
            <DateRangePicker
              value={range}
              onChange={(r) => {
                setRange(r);
                setPage(1);
              }}
            />
            <Select
              aria-label="Campaign"
              className="w-48"
              value={campaignId}
              onValueChange={(v) => {
                setCampaignId(v);
                setPage(1);
              }}
              options={[
                { value: "all", label: "All Campaigns" },
                ...(choices.data ?? []).map((c) => ({ value: String(c.campaignId), label: c.campaignName ?? `Campaign ${c.campaignId}` })),
              ]}
            />
            <Button asChild variant="secondary">
              <a href={exportUrl(range, campaignId)} download>
                <Download />
                Download CSV
              </a>
            </Button>
          </>
        }
      />
      <div className="grid grid-cols-1 gap-6">
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-3">
          <StatCard label="Total Clicks" icon={<MousePointerClick />} value={data ? data.total.toLocaleString("en-US") : "—"} />
          <StatCard label="Exit Clicks" icon={<LogOut />} value={data ? data.exitClicks.toLocaleString("en-US") : "—"} />
          <StatCard label="Lander CTR" icon={<Percent />} value={data ? `${data.ctr.toFixed(2)}%` : "—"} note="Exit clicks / clicks" />
        </div>
        <RetentionNotice retention={retention.data} />
        <RefusedClicksCard refused={refused.data} />
        <Card>
          <Table>
            <TableHeader>
              <TableRow>
                <TableHead>Status</TableHead>
                <TableHead>Click ID</TableHead>
                <TableHead>Campaign</TableHead>
                <TableHead>Clicked At</TableHead>
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
