import { ChevronLeft, ChevronRight } from "lucide-react";
import { Button } from "./button";

/** Up to `max` page numbers, windowed around the current page. */
export function pageWindow(page: number, pages: number, max = 5): number[] {
  const size = Math.min(max, pages);
  const start = Math.min(Math.max(1, page - Math.floor(size / 2)), pages - size + 1);
  return Array.from({ length: size }, (_, i) => start + i);
}

interface Props {
  page: number;
  pageSize: number;
  total: number;
  onPageChange(page: number): void;
  /** "transactions" → "Showing 1-50 of 120 transactions". */
  noun: string;
}

/** Previous / numbered / Next, shown only when there is more than one page (docs/screens.md §2). */
export function Pagination({ page, pageSize, total, onPageChange, noun }: Props) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  if (pages <= 1) return null;
  const first = (page - 1) * pageSize + 1;
  const last = Math.min(page * pageSize, total);
  return (
    <nav aria-label="Pagination" className="flex flex-col items-center justify-between gap-3 border-t border-slate-200 px-4 py-3 sm:flex-row">
      <p className="tabular text-sm text-slate-600">
        Showing {first}-{last} of {total.toLocaleString("en-US")} {noun}
      </p>
      <div className="flex items-center gap-1">
        <Button variant="secondary" size="sm" disabled={page <= 1} onClick={() => onPageChange(page - 1)}>
          <ChevronLeft />
          Previous
        </Button>
        {pageWindow(page, pages).map((n) => (
          <Button
            key={n}
            size="sm"
            variant={n === page ? "primary" : "ghost"}
            aria-current={n === page ? "page" : undefined}
            aria-label={`Page ${n}`}
            onClick={() => onPageChange(n)}
            className="tabular min-w-8"
          >
            {n}
          </Button>
        ))}
        <Button variant="secondary" size="sm" disabled={page >= pages} onClick={() => onPageChange(page + 1)}>
          Next
          <ChevronRight />
        </Button>
      </div>
    </nav>
  );
}
