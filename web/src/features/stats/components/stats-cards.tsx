import { ArrowDown, ArrowUp, ChevronDown } from "lucide-react";
import { useId, useState, type ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Select } from "@/components/ui/select";
import { Spinner } from "@/components/ui/spinner";
import { cn } from "@/lib/cn";
import type { ReportRow, ReportTotals } from "../api";
import type { Column, ColumnKey } from "../columns";
import { profitClass } from "../format";
import type { Sort } from "../sort";
import type { StatsViewProps } from "./stats-table";

/**
 * The figures a card shows first, in this order: the money a buyer checks (revenue, cost,
 * profit, ROI), then whether traffic flows (CAKE's visits, our link clicks). Those the user has
 * hidden are left out, and the next visible columns take their places.
 */
export const KEY_FIGURES: readonly ColumnKey[] = ["revenue", "spend", "profit", "roi", "visits", "linkClicks"];
const SHOWN_FIRST = KEY_FIGURES.length;

/** The visible figure columns split into those a card shows at once and those behind "More figures". */
export function cardFigures(columns: readonly Column[]): { first: Column[]; more: Column[] } {
  const figures = columns.filter((c) => c.key !== "name");
  const keyed = KEY_FIGURES.flatMap((k) => figures.filter((c) => c.key === k));
  const first = [...keyed, ...figures.filter((c) => !keyed.includes(c))].slice(0, SHOWN_FIRST);
  return { first, more: figures.filter((c) => !first.includes(c)) };
}

interface Props extends StatsViewProps {
  onSortChange(sort: Sort<ColumnKey>): void;
}

function Figures({ columns, row }: { columns: Column[]; row: ReportRow | ReportTotals }) {
  return (
    <dl className="grid grid-cols-3 gap-x-3 gap-y-2">
      {columns.map((c) => (
        <div key={c.key} className="min-w-0">
          <dt className="truncate text-[11px] font-medium uppercase tracking-wide text-slate-500" title={c.description}>
            {c.label}
          </dt>
          <dd className={cn("tabular truncate text-sm font-medium text-slate-900", c.key === "profit" && profitClass(row.profit))}>{c.cell(row)}</dd>
        </div>
      ))}
    </dl>
  );
}

/** One row (or the totals) as a card: its name, the key figures, the rest behind a disclosure. */
function StatsCard({ title, row, columns, className }: { title: ReactNode; row: ReportRow | ReportTotals; columns: Column[]; className?: string }) {
  const [open, setOpen] = useState(false);
  const moreId = useId();
  const { first, more } = cardFigures(columns);
  return (
    <div className={cn("grid gap-2 px-4 py-3", className)}>
      {title}
      <Figures columns={first} row={row} />
      {more.length > 0 ? (
        <>
          <button
            type="button"
            aria-expanded={open}
            aria-controls={moreId}
            onClick={() => setOpen((o) => !o)}
            className="inline-flex items-center gap-1 justify-self-start rounded text-xs font-medium text-brand-700 hover:underline"
          >
            <ChevronDown className={cn("size-3.5 transition-transform", open && "rotate-180")} aria-hidden="true" />
            {open ? "Fewer figures" : `${more.length} more ${more.length === 1 ? "figure" : "figures"}`}
          </button>
          <div id={moreId} hidden={!open}>
            {open ? <Figures columns={more} row={row} /> : null}
          </div>
        </>
      ) : null}
    </div>
  );
}

/**
 * The stats table on a phone (docs/screens.md §2): a card per row, in the table's sort, with
 * the key figures side by side instead of a table two columns of which fit the screen. Sorting
 * is a select and a direction button, since there are no headers to press.
 */
export function StatsCards(p: Props) {
  const { columns, rows, totals, sort } = p;
  const sortId = useId();
  const sortOptions = columns.filter((c) => c.sortable).map((c) => ({ value: c.key, label: c.key === "name" ? p.nameLabel : c.description }));
  const largestFirst = sort.direction === "desc";
  // Names sort as text: "Z to A" says what "descending" means there.
  const order = sort.key === "name" ? (largestFirst ? "Z to A" : "A to Z") : largestFirst ? "Largest first" : "Smallest first";

  let body: ReactNode;
  if (p.loading) {
    body = (
      <div className="py-12 text-center">
        <Spinner label="Loading stats" />
      </div>
    );
  } else if (p.error !== null) {
    body = (
      <div className="px-4 py-12 text-center text-sm text-danger-700" role="alert">
        Failed to fetch stats
        {p.error ? <span className="mt-1 block text-xs text-slate-500">{p.error}</span> : null}
      </div>
    );
  } else if (rows.length === 0) {
    body = <p className="px-4 py-12 text-center text-sm text-slate-500">No data available for the selected filters</p>;
  } else {
    body = (
      <>
        <ul aria-label="Stats" className="divide-y divide-slate-100">
          {rows.map((row) => {
            const clickable = p.onRowClick !== undefined && row.campaignId !== null;
            const filtered = clickable && row.campaignId === p.filteredCampaignId;
            const name = (
              <p className="flex min-w-0 items-center gap-2 text-sm font-semibold text-slate-900">
                {clickable ? (
                  <button
                    type="button"
                    aria-pressed={filtered}
                    aria-label={`${filtered ? "Clear the campaign filter" : "Filter by campaign"} ${row.name}`}
                    onClick={() => p.onRowClick!(row)}
                    className="min-w-0 truncate rounded text-left underline-offset-2 hover:underline"
                  >
                    {row.name}
                  </button>
                ) : (
                  <span className="min-w-0 truncate" title={row.name}>
                    {row.name}
                  </span>
                )}
                {filtered ? <Badge variant="default">Filtered</Badge> : null}
              </p>
            );
            return (
              <li key={row.key} data-key={row.key} aria-label={row.name} className={cn(filtered && "bg-brand-50")}>
                <StatsCard title={name} row={row} columns={columns} />
              </li>
            );
          })}
        </ul>
        {totals ? (
          <section aria-label="Totals" className="border-t border-slate-300 bg-slate-50">
            <StatsCard title={<p className="text-sm font-semibold text-slate-900">TOTALS</p>} row={totals} columns={columns} />
          </section>
        ) : null}
      </>
    );
  }

  return (
    <div aria-busy={p.loading}>
      <div className="flex items-center gap-2 border-b border-slate-200 px-4 py-2">
        <label htmlFor={sortId} className="shrink-0 text-xs font-medium text-slate-600">
          Sort by
        </label>
        <Select
          id={sortId}
          value={sort.key}
          onValueChange={(key) => p.onSortChange({ key: key as ColumnKey, direction: "desc" })}
          options={sortOptions}
          className="h-8 min-w-0 flex-1"
        />
        <Button
          variant="secondary"
          size="sm"
          aria-label={`Reverse the order (now ${order.toLowerCase()})`}
          onClick={() => p.onSortChange({ key: sort.key, direction: largestFirst ? "asc" : "desc" })}
        >
          {largestFirst ? <ArrowDown aria-hidden="true" /> : <ArrowUp aria-hidden="true" />}
          {order}
        </Button>
      </div>
      {body}
    </div>
  );
}
