import { subDays } from "date-fns";
import { Download, ScrollText } from "lucide-react";
import { useMemo } from "react";
import { Instant, ZoneOfColumn } from "@/components/instant";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { DateRangePicker } from "@/components/ui/date-range-picker";
import { EmptyState, PageHeader } from "@/components/ui/page";
import { Pagination } from "@/components/ui/pagination";
import { Select } from "@/components/ui/select";
import { QueryRows, Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { fromDay, toDay } from "@/lib/date-ranges";
import { useReportDays } from "@/lib/report-days";
import { useReportTime } from "@/lib/report-time";
import { useSearchState } from "@/lib/url-state";
import { AUDIT_KIND_LABELS, AUDIT_KINDS, auditListQuery, type AuditKind } from "../../../../worker/src/schemas/audit";
import { auditExportUrl, useAuditLog, useUserChoices, type AuditEntry, type AuditFilters } from "./api";

/** The last 30 days of the report time zone: the URL's range when it names none. */
const auditDefaults = (today: string) => ({ startDate: toDay(subDays(fromDay(today), 29)), endDate: today, page: "1" });

const kindLabel = (kind: string) => (kind in AUDIT_KIND_LABELS ? AUDIT_KIND_LABELS[kind as AuditKind] : kind);

function EntryRow({ entry }: { entry: AuditEntry }) {
  return (
    <TableRow>
      <TableCell className="tabular whitespace-nowrap text-xs text-slate-600">
        <Instant at={entry.at} />
      </TableCell>
      <TableCell className="font-medium text-slate-900">{entry.actorName}</TableCell>
      <TableCell>
        <div className="grid gap-0.5">
          <span className="font-mono text-xs text-slate-800">{entry.action}</span>
          <span className="text-xs text-slate-500">
            <Badge variant="outline" className="mr-1">
              {kindLabel(entry.entityKind)}
            </Badge>
            {entry.entityId ? <span className="tabular break-all">{entry.entityId}</span> : null}
          </span>
        </div>
      </TableCell>
      <TableCell className="min-w-56 max-w-xl whitespace-normal break-words text-sm text-slate-700">{entry.summary || "—"}</TableCell>
      <TableCell className="tabular hidden whitespace-nowrap text-xs text-slate-500 lg:table-cell">{entry.ip ?? "—"}</TableCell>
    </TableRow>
  );
}

/** The same entries on a phone: stacked, so the change itself is never off-screen. */
function EntryList({ entries }: { entries: AuditEntry[] }) {
  const { timeZone } = useReportTime();
  return (
    <div className="sm:hidden">
      {/* No column header on a phone: the zone of the times is said once above them. */}
      <p className="border-b border-slate-200 px-4 py-2 text-xs text-slate-500">Times in {timeZone} (the report time zone)</p>
      <ul aria-label="Audit entries" className="divide-y divide-slate-200">
        {entries.map((e) => (
          <li key={e.id} className="grid gap-1 px-4 py-3">
            <div className="flex items-baseline justify-between gap-2">
              <span className="font-medium text-slate-900">{e.actorName}</span>
              <Instant at={e.at} className="tabular text-xs text-slate-500" />
            </div>
            <div className="flex flex-wrap items-center gap-1.5">
              <span className="font-mono text-xs text-slate-800">{e.action}</span>
              <Badge variant="outline">{kindLabel(e.entityKind)}</Badge>
            </div>
            <p className="break-words text-sm text-slate-700">{e.summary || "—"}</p>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** /audit (admins): who changed what, newest first, filtered, paged, exported as CSV. */
export default function AuditScreen() {
  // The range, user, kind and page live in the URL (the API's own schema reads them).
  const days = useReportDays();
  const defaults = useMemo(() => auditDefaults(days.todayDay), [days.todayDay]);
  const { value: search, update: updateSearch } = useSearchState(auditListQuery, defaults);
  const filters: AuditFilters = {
    range: { startDate: search.startDate!, endDate: search.endDate! },
    userId: search.userId ?? "all",
    entityKind: search.entityKind ?? "all",
  };
  const page = search.page;
  const setPage = (p: number) => updateSearch({ page: p });
  const log = useAuditLog(filters, page);
  const users = useUserChoices();
  const update = (change: Partial<AuditFilters>) =>
    updateSearch({
      ...(change.range && { startDate: change.range.startDate, endDate: change.range.endDate }),
      ...(change.userId !== undefined && { userId: change.userId === "all" ? null : change.userId }),
      ...(change.entityKind !== undefined && { entityKind: change.entityKind === "all" ? null : change.entityKind }),
      page: null,
    });
  const data = log.data;

  return (
    <>
      <PageHeader
        title="Audit Log"
        description="Every change made in Trackyard: who, when, what, and the before → after. Kept 400 days."
        actions={
          <Button asChild variant="secondary">
            <a href={auditExportUrl(filters)} download>
              <Download />
              Download CSV
            </a>
          </Button>
        }
      />
      <div className="mb-4 grid grid-cols-1 gap-2 sm:flex sm:flex-wrap sm:items-center">
        <DateRangePicker value={filters.range} onChange={(range) => update({ range })} />
        <Select
          aria-label="User"
          className="sm:w-48"
          value={filters.userId}
          onValueChange={(userId) => update({ userId })}
          options={[{ value: "all", label: "All users" }, ...(users.data ?? []).map((u) => ({ value: u.id, label: u.username }))]}
        />
        <Select
          aria-label="Kind"
          className="sm:w-48"
          value={filters.entityKind}
          onValueChange={(v) => update({ entityKind: v as AuditFilters["entityKind"] })}
          options={[{ value: "all", label: "Everything" }, ...AUDIT_KINDS.map((k) => ({ value: k, label: AUDIT_KIND_LABELS[k] }))]}
        />
      </div>
      <Card>
        {data && data.entries.length ? <EntryList entries={data.entries} /> : null}
        <Table className={data && data.entries.length ? "max-sm:hidden" : undefined}>
          <TableHeader>
            <TableRow>
              <TableHead>
                When
                <ZoneOfColumn />
              </TableHead>
              <TableHead>User</TableHead>
              <TableHead>What</TableHead>
              <TableHead>Change</TableHead>
              <TableHead className="hidden lg:table-cell">IP Address</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            <QueryRows
              query={log}
              rows={data?.entries ?? []}
              colSpan={5}
              loading="Loading the audit log..."
              failed="Failed to load the audit log"
              emptyState={<EmptyState icon={<ScrollText />} title="No changes recorded for these filters" />}
            >
              {(e) => <EntryRow key={e.id} entry={e} />}
            </QueryRows>
          </TableBody>
        </Table>
        {data ? <Pagination page={page} pageSize={data.pageSize} total={data.total} onPageChange={setPage} noun="entries" /> : null}
      </Card>
    </>
  );
}
