import { ArrowDown, ArrowUp, ArrowUpDown } from "lucide-react";
import { useRef, type KeyboardEvent, type PointerEvent } from "react";
import { Badge } from "@/components/ui/badge";
import { Spinner } from "@/components/ui/spinner";
import { InViewport, stickyShadowClass, TableScroller } from "@/components/ui/table";
import { cn } from "@/lib/cn";
import type { ReportRow, ReportTotals } from "../api";
import { headerOf, MAX_WIDTH, MIN_WIDTH, type Column, type ColumnKey } from "../columns";
import { profitClass } from "../format";
import type { Sort } from "../sort";

/** What the table and its phone layout (stats-cards.tsx) both show. */
export interface StatsViewProps {
  columns: Column[];
  rows: ReportRow[];
  totals: ReportTotals | null;
  /** What the Name column holds in this grouping ("Campaign", "Spark", "Ad ID", ...). */
  nameLabel: string;
  sort: Sort<ColumnKey>;
  loading: boolean;
  error: string | null;
  /** Campaign grouping: rows with a campaign id toggle the campaign filter. */
  onRowClick?: (row: ReportRow) => void;
  filteredCampaignId: number | null;
}

interface Props extends StatsViewProps {
  onSort(key: ColumnKey): void;
  widthOf(key: ColumnKey): number;
  onResize(key: ColumnKey, px: number): void;
  onResetWidth(key: ColumnKey): void;
}

const KEY_STEP = 10;
const KEY_STEP_LARGE = 50;

/** The drag and keyboard handle on a header's right edge (the ARIA window-splitter pattern). */
function ResizeHandle({ column, width, onResize, onReset }: { column: Column; width: number; onResize(px: number): void; onReset(): void }) {
  const drag = useRef<{ x: number; width: number } | null>(null);
  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
    drag.current = { x: e.clientX, width };
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    if (drag.current) onResize(drag.current.width + e.clientX - drag.current.x);
  };
  const onPointerUp = (e: PointerEvent<HTMLDivElement>) => {
    drag.current = null;
    if (e.currentTarget.hasPointerCapture(e.pointerId)) e.currentTarget.releasePointerCapture(e.pointerId);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const step = e.shiftKey ? KEY_STEP_LARGE : KEY_STEP;
    const to = e.key === "ArrowLeft" ? width - step : e.key === "ArrowRight" ? width + step : e.key === "Home" ? MIN_WIDTH : e.key === "End" ? MAX_WIDTH : null;
    if (to !== null) {
      e.preventDefault();
      onResize(to);
    } else if (e.key === "Enter" || e.key === "Delete") {
      e.preventDefault();
      onReset();
    }
  };
  return (
    <div
      role="separator"
      aria-orientation="vertical"
      aria-label={`Resize ${column.description} column`}
      aria-valuenow={width}
      aria-valuemin={MIN_WIDTH}
      aria-valuemax={MAX_WIDTH}
      aria-valuetext={`${width} pixels`}
      tabIndex={0}
      title="Drag, or use the arrow keys, to resize; double-click to reset"
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerUp}
      onDoubleClick={onReset}
      onKeyDown={onKeyDown}
      onClick={(e) => e.stopPropagation()}
      className="group/handle absolute inset-y-0 right-0 z-20 flex w-2.5 cursor-col-resize touch-none select-none justify-end focus-visible:outline-none"
    >
      <span className="h-full w-0.5 bg-transparent transition-colors group-hover/handle:bg-brand-500 group-focus-visible/handle:bg-brand-600" />
    </div>
  );
}

const ariaSort = (active: boolean, sort: Sort<ColumnKey>) => (active ? (sort.direction === "asc" ? "ascending" : "descending") : undefined);

/** A cell's classes: the Name column sticks to the left edge while the figures scroll. */
const cellClass = (c: Column) =>
  cn(
    "overflow-hidden text-ellipsis whitespace-nowrap px-3",
    c.key === "name" ? cn("sticky left-0 z-10 bg-inherit text-left", stickyShadowClass) : "tabular text-right",
  );

export function StatsTable(p: Props) {
  const { columns, rows, totals, sort } = p;
  const width = columns.reduce((sum, c) => sum + p.widthOf(c.key), 0);

  return (
    <TableScroller label="Stats">
      {/* Columns keep their set widths; when they need less than the card, a last empty column takes the rest. */}
      <table
        className="table-fixed border-separate border-spacing-0 text-sm"
        style={{ width: `max(100%, ${width}px)` }}
        aria-label="Stats"
        aria-busy={p.loading}
      >
        <colgroup>
          {columns.map((c) => (
            <col key={c.key} style={{ width: p.widthOf(c.key) }} />
          ))}
          <col />
        </colgroup>
        <thead>
          <tr className="bg-slate-50">
            {columns.map((c) => {
              const active = c.sortable && sort.key === c.key;
              const label = headerOf(c, p.nameLabel);
              const full = c.key === "name" ? p.nameLabel : c.description;
              return (
                <th
                  key={c.key}
                  scope="col"
                  // The header's name for the cells below: the full words, not "Conv", and not the resize handle's label.
                  aria-label={full}
                  aria-sort={ariaSort(active, sort)}
                  className={cn(
                    "relative h-10 border-b border-slate-200 bg-slate-50 text-xs font-semibold uppercase tracking-wide text-slate-500",
                    cellClass(c),
                  )}
                  title={full === label ? undefined : full}
                >
                  {c.sortable ? (
                    <button
                      type="button"
                      aria-label={`Sort by ${full}`}
                      onClick={() => p.onSort(c.key)}
                      className={cn(
                        "inline-flex max-w-full items-center gap-1 rounded uppercase hover:text-slate-900",
                        c.key !== "name" && "flex-row-reverse",
                        active && "text-slate-900",
                      )}
                    >
                      <span className="truncate">{label}</span>
                      {active ? (
                        sort.direction === "asc" ? (
                          <ArrowUp className="size-3.5 shrink-0" aria-hidden="true" />
                        ) : (
                          <ArrowDown className="size-3.5 shrink-0" aria-hidden="true" />
                        )
                      ) : (
                        <ArrowUpDown className="size-3.5 shrink-0 opacity-40" aria-hidden="true" />
                      )}
                    </button>
                  ) : (
                    <span className="truncate">{label}</span>
                  )}
                  <ResizeHandle
                    column={{ ...c, description: full }}
                    width={p.widthOf(c.key)}
                    onResize={(px) => p.onResize(c.key, px)}
                    onReset={() => p.onResetWidth(c.key)}
                  />
                </th>
              );
            })}
            <th aria-hidden="true" className="border-b border-slate-200 bg-slate-50" />
          </tr>
        </thead>
        <tbody>
          {p.loading ? (
            <tr>
              <td colSpan={columns.length + 1} className="py-12 text-center">
                <InViewport>
                  <Spinner label="Loading stats" />
                </InViewport>
              </td>
            </tr>
          ) : p.error !== null ? (
            <tr>
              <td colSpan={columns.length + 1} className="py-12 text-center text-sm text-danger-700" role="alert">
                <InViewport className="px-3">
                  Failed to fetch stats
                  {p.error ? <span className="mt-1 block text-xs text-slate-500">{p.error}</span> : null}
                </InViewport>
              </td>
            </tr>
          ) : rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length + 1} className="py-12 text-center text-sm text-slate-500">
                <InViewport className="px-3">No data available for the selected filters</InViewport>
              </td>
            </tr>
          ) : (
            rows.map((row) => {
              const clickable = p.onRowClick !== undefined && row.campaignId !== null;
              const filtered = clickable && row.campaignId === p.filteredCampaignId;
              return (
                <tr
                  key={row.key}
                  data-key={row.key}
                  onClick={clickable ? () => p.onRowClick!(row) : undefined}
                  className={cn("bg-white transition-colors", clickable && "cursor-pointer hover:bg-slate-50", filtered && "bg-brand-50 hover:bg-brand-50")}
                >
                  {columns.map((c) => (
                    <td
                      key={c.key}
                      className={cn(
                        "h-10 border-b border-slate-100",
                        cellClass(c),
                        c.key === "profit" && profitClass(row.profit),
                        c.key === "name" && "font-medium text-slate-900",
                      )}
                      title={c.key === "name" ? row.name : undefined}
                    >
                      {c.key === "name" ? (
                        <span className="flex min-w-0 items-center gap-2">
                          {clickable ? (
                            // The row takes the click; this button makes it reachable and named for keyboards and screen readers.
                            <button
                              type="button"
                              aria-pressed={filtered}
                              aria-label={`${filtered ? "Clear the campaign filter" : "Filter by campaign"} ${row.name}`}
                              className="min-w-0 truncate rounded text-left hover:underline"
                            >
                              {row.name}
                            </button>
                          ) : (
                            <span className="min-w-0 truncate">{row.name}</span>
                          )}
                          {filtered ? <Badge variant="default">Filtered</Badge> : null}
                        </span>
                      ) : (
                        c.cell(row)
                      )}
                    </td>
                  ))}
                  <td aria-hidden="true" className="border-b border-slate-100" />
                </tr>
              );
            })
          )}
        </tbody>
        {!p.loading && p.error === null && rows.length > 0 && totals ? (
          <tfoot>
            <tr className="bg-slate-50 font-semibold text-slate-900">
              {columns.map((c) => (
                <td key={c.key} className={cn("h-10 border-t border-slate-300", cellClass(c), c.key === "profit" && profitClass(totals.profit))}>
                  {c.key === "name" ? "TOTALS" : c.cell(totals)}
                </td>
              ))}
              <td aria-hidden="true" className="border-t border-slate-300" />
            </tr>
          </tfoot>
        ) : null}
      </table>
    </TableScroller>
  );
}
