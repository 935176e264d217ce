import { useQuery } from "@tanstack/react-query";
import { Download, X } from "lucide-react";
import { lazy, Suspense, useMemo } from "react";
import { ScopeNote } from "@/components/scope-note";
import { Button } from "@/components/ui/button";
import { Card, CardHeader, CardTitle } from "@/components/ui/card";
import { Checkbox } from "@/components/ui/checkbox";
import { DateRangePicker } from "@/components/ui/date-range-picker";
import { PageHeader } from "@/components/ui/page";
import { Skeleton, Spinner } from "@/components/ui/spinner";
import { Tabs, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { CopyLinkButton } from "@/components/ui/copy-link-button";
import { isAdmin, useUser } from "@/lib/auth";
import { formatMoney, formatRelative } from "@/lib/format";
import { PHONE_QUERY, useMediaQuery } from "@/lib/use-media-query";
import { useReportDays } from "@/lib/report-days";
import { useSearchState } from "@/lib/url-state";
import { useAfterFirstPaint } from "@/lib/after-paint";
import { CAKE_ONLY_GROUPINGS } from "../../../../worker/src/schemas/stats";
import { reportQuery, type ReportRow } from "./api";
import { COLUMNS, sortValue, visibleColumns, type ColumnKey } from "./columns";
import { ColumnChooser } from "./components/column-chooser";
import { DataSources } from "./components/data-sources";
import { FilterRow, type Filters } from "./components/filter-row";
import { StatsCards } from "./components/stats-cards";
import { StatsTable, type StatsViewProps } from "./components/stats-table";
import { SummaryCards } from "./components/summary-cards";
import { TrafficStrip } from "./components/traffic-strip";
import { downloadText, statsCsv, statsCsvName } from "./csv";
import { nameLabelOf, TABS, type Tab } from "./groupings";
import { nextSort, sortRows, type Sort } from "./sort";
import { filtersOf, reportParamsOf, sortOf, statsSearchDefaults, statsSearchSchema } from "./url-state";
import { useTablePreferences } from "./use-table-preferences";

const DailyChart = lazy(() => import("./components/daily-chart"));

const OWN_TRAFFIC: readonly ColumnKey[] = ["linkClicks", "exitClicks", "landerCtr", "botShare"];

function LastSync({ lastSync }: { lastSync: { cake: string | null; tiktok: string | null } }) {
  const when = (iso: string | null) => (iso ? `synced ${formatRelative(iso)}` : "not synced yet");
  return (
    <>
      Revenue from CAKE ({when(lastSync.cake)}), spend from TikTok ({when(lastSync.tiktok)}).
    </>
  );
}

export default function StatsScreen() {
  const { data: user } = useUser();
  const admin = isAdmin(user);
  // Everything the user sets lives in the URL: refresh, Back and a pasted link show the same report.
  const days = useReportDays();
  const defaults = useMemo(() => statsSearchDefaults(days.todayDay), [days.todayDay]);
  const { value: search, update } = useSearchState(statsSearchSchema, defaults);
  const range = { startDate: search.startDate, endDate: search.endDate };
  const tab = search.tab;
  const filters = filtersOf(search);
  const sort = sortOf(search);
  const includeBots = search.includeBots;
  const campaign = search.campaignId ? { id: search.campaignId, name: search.campaignName ?? `Campaign ${search.campaignId}` } : null;
  const setFilters = (patch: Partial<Filters>) =>
    update({
      ...("variable" in patch && { variable: patch.variable }),
      ...("offerId" in patch && { offerId: patch.offerId }),
      ...("sparkId" in patch && { sparkId: patch.sparkId }),
      ...("mediaBuyer" in patch && { mediaBuyer: patch.mediaBuyer }),
    });
  const setCampaign = (c: { id: number; name: string } | null) => update({ campaignId: c?.id ?? null, campaignName: c?.name ?? null });
  const prefs = useTablePreferences();

  const params = reportParamsOf(search);
  const campaignGrouping = params.groupBy === "campaign";
  const report = useQuery(reportQuery(params));
  // The chart's library is fetched and run once the table and cards are on screen, not before.
  const chartTime = useAfterFirstPaint();

  const rows = useMemo(() => sortRows(report.data?.rows ?? [], sort, sortValue), [report.data, sort]);
  const columns = visibleColumns(prefs.prefs.visibleColumns);
  const nameLabel = nameLabelOf(tab, filters.variable);
  const phone = useMediaQuery(PHONE_QUERY);
  const widthOf = (key: ColumnKey) => prefs.prefs.columnWidths[key] ?? COLUMNS.find((c) => c.key === key)!.defaultWidth;

  // docs/screens.md §2 and §4: a campaign row (not Direct) toggles the campaign filter.
  const toggleCampaign = (row: ReportRow) => {
    if (row.campaignId === null) return;
    setCampaign(campaign?.id === row.campaignId ? null : { id: row.campaignId, name: row.name });
  };

  const setSort = (next: Sort<ColumnKey>) => update({ sort: next.key, dir: next.direction });
  // What the table shows, and the cards on a phone.
  const view: StatsViewProps = {
    columns,
    rows,
    totals: report.data?.totals ?? null,
    nameLabel,
    sort,
    // Until the user's columns are known too: the default set would show, then change.
    loading: report.isPending || !prefs.loaded,
    error: report.isError ? report.error.message : null,
    onRowClick: campaignGrouping ? toggleCampaign : undefined,
    filteredCampaignId: campaign?.id ?? null,
  };

  const exportCsv = () => {
    if (!report.data) return;
    // The table as shown: its columns, its sort, its headers.
    downloadText(statsCsvName(days.todayDay), statsCsv(columns, rows, nameLabel));
  };

  return (
    <>
      <PageHeader
        title="Dashboard"
        description={report.data && !admin ? <LastSync lastSync={report.data.lastSync} /> : "Revenue, spend and profit by campaign, spark, offer and more."}
        actions={
          <>
            <Button variant="secondary" onClick={exportCsv} disabled={!report.data || rows.length === 0}>
              <Download />
              Download CSV
            </Button>
            <CopyLinkButton />
            <DateRangePicker value={range} onChange={(r) => update({ startDate: r.startDate, endDate: r.endDate })} />
          </>
        }
      />
      {/* minmax(0, 1fr): a wide table or tab list scrolls inside its box instead of widening the page. */}
      <div className="grid grid-cols-[minmax(0,1fr)] gap-5">
        {admin ? <DataSources /> : <ScopeNote kind="mediaBuyers" />}

        <FilterRow filters={filters} onChange={setFilters} range={range} />

        <Checkbox
          checked={includeBots}
          onCheckedChange={(checked) => update({ includeBots: checked })}
          label="Include bot clicks"
          description="Count clicks flagged as bots (crawlers, ad reviewers, TikTok's preloader) in Link Clicks, Lander CTR and the click shares that split spend."
        />

        {campaign ? (
          <div className="flex flex-wrap items-center gap-2">
            <span className="inline-flex max-w-full items-center gap-1 rounded-full bg-brand-50 py-1 pl-3 pr-1 text-sm text-brand-800 ring-1 ring-inset ring-brand-100">
              <span className="truncate">Campaign: {campaign.name}</span>
              <button
                type="button"
                onClick={() => setCampaign(null)}
                aria-label={`Remove the campaign filter ${campaign.name}`}
                className="rounded-full p-0.5 hover:bg-brand-100"
              >
                <X className="size-3.5" aria-hidden="true" />
              </button>
            </span>
          </div>
        ) : null}

        {/* Ours first: it has figures from the first click, before CAKE and TikTok are connected. */}
        <TrafficStrip report={report.data} />
        <SummaryCards report={report.data} />

        <Card>
          <CardHeader className="pb-1">
            <CardTitle>Revenue, spend and profit per day</CardTitle>
          </CardHeader>
          <div className="h-64 px-2 pb-4 sm:px-4" role="img" aria-label={chartLabel(report.data)}>
            {report.data && chartTime ? (
              <Suspense fallback={<Skeleton className="h-full w-full" />}>
                <DailyChart daily={report.data.daily} />
              </Suspense>
            ) : (
              <Skeleton className="h-full w-full" />
            )}
          </div>
        </Card>

        {/* The tabs choose the table's grouping, so they sit on it; the filters above apply to everything. */}
        <Tabs
          value={filters.variable === "none" ? tab : ""}
          // A tab is a grouping of its own: it replaces a chosen tracking-field variable.
          onValueChange={(v) => update({ tab: v as Tab, variable: "none" })}
          activationMode="manual"
        >
          <TabsList aria-label="Group by">
            {TABS.map((t) => (
              <TabsTrigger key={t.value} value={t.value}>
                {t.label}
              </TabsTrigger>
            ))}
          </TabsList>
        </Tabs>

        <Card className="overflow-hidden">
          <div className="flex items-center justify-between gap-3 border-b border-slate-200 px-4 py-3">
            <p className="text-sm text-slate-600" aria-live="polite">
              {report.data ? `${rows.length.toLocaleString("en-US")} ${rows.length === 1 ? "row" : "rows"}` : "\u00a0"}
              {report.isFetching && report.data ? <Spinner className="ml-2 align-middle [&>span:first-child]:size-3.5" label="Updating" /> : null}
            </p>
            <ColumnChooser prefs={prefs} />
          </div>
          {CAKE_ONLY_GROUPINGS.includes(params.groupBy) && columns.some((c) => OWN_TRAFFIC.includes(c.key)) ? (
            // docs/data.md "Performance stats": how our clicks reach the groups only CAKE's rows know.
            <p className="border-b border-slate-200 px-4 py-2 text-xs text-slate-500">
              Our clicks do not record the {nameLabel.toLowerCase()}: Link Clicks, Exit Clicks, Lander CTR and Bot Share are the clicks of the campaigns CAKE
              reported under each {nameLabel.toLowerCase()}. A campaign under two counts in both; TOTALS counts each click once.
            </p>
          ) : null}
          {phone ? (
            <StatsCards {...view} onSortChange={setSort} />
          ) : (
            <StatsTable {...view} onSort={(key) => setSort(nextSort(sort, key))} widthOf={widthOf} onResize={prefs.setWidth} onResetWidth={prefs.resetWidth} />
          )}
        </Card>
      </div>
    </>
  );
}

function chartLabel(report: { startDate: string; endDate: string; totals: { revenue: string; spend: string; profit: string } } | undefined) {
  if (!report) return "Revenue, spend and profit per day: loading";
  const t = report.totals;
  return `Revenue, spend and profit per day from ${report.startDate} to ${report.endDate}: revenue ${formatMoney(t.revenue)}, spend ${formatMoney(t.spend)}, profit ${formatMoney(t.profit)} in total`;
}
