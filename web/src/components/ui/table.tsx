import type { HTMLAttributes, ReactNode, TdHTMLAttributes, ThHTMLAttributes } from "react";
import { cn } from "@/lib/cn";

/** A table that scrolls sideways on small screens instead of breaking the layout. */
export const Table = ({ className, ...props }: HTMLAttributes<HTMLTableElement>) => (
  <div className="w-full overflow-x-auto">
    <table className={cn("w-full caption-bottom border-collapse text-sm", className)} {...props} />
  </div>
);

export const TableHeader = (props: HTMLAttributes<HTMLTableSectionElement>) => (
  <thead className={cn("border-b border-slate-200 bg-slate-50/80", props.className)} {...props} />
);

export const TableBody = ({ className, ...props }: HTMLAttributes<HTMLTableSectionElement>) => (
  <tbody className={cn("[&_tr:last-child]:border-0", className)} {...props} />
);

export const TableFooter = ({ className, ...props }: HTMLAttributes<HTMLTableSectionElement>) => (
  <tfoot className={cn("border-t border-slate-300 bg-slate-50 font-semibold", className)} {...props} />
);

export const TableRow = ({ className, ...props }: HTMLAttributes<HTMLTableRowElement>) => (
  <tr className={cn("border-b border-slate-100 transition-colors hover:bg-slate-50/60", className)} {...props} />
);

interface CellProps {
  /** Right-aligned tabular figures, for money and counts. */
  numeric?: boolean;
}

export const TableHead = ({ className, numeric, ...props }: ThHTMLAttributes<HTMLTableCellElement> & CellProps) => (
  <th
    scope="col"
    className={cn(
      "h-10 whitespace-nowrap px-3 text-left align-middle text-xs font-semibold uppercase tracking-wide text-slate-500",
      numeric && "text-right",
      className,
    )}
    {...props}
  />
);

export const TableCell = ({ className, numeric, ...props }: TdHTMLAttributes<HTMLTableCellElement> & CellProps) => (
  <td className={cn("px-3 py-2.5 align-middle", numeric && "tabular text-right", className)} {...props} />
);

/** One full-width row for loading and empty states. */
export const TableMessage = ({ colSpan, children }: { colSpan: number; children: ReactNode }) => (
  <tr>
    <td colSpan={colSpan} className="px-3 py-10 text-center text-sm text-slate-500">
      {children}
    </td>
  </tr>
);

/** What QueryRows reads of a query (react-query's result has it). */
interface QueryState {
  isPending: boolean;
  isError: boolean;
  error: Error | null;
}

type QueryRowsProps<T> = {
  query: QueryState;
  rows: readonly T[];
  colSpan: number;
  /** Said while the query loads. */
  loading: ReactNode;
  /** Said when the query fails without a message. */
  failed?: string;
  children: (row: T) => ReactNode;
} & (
  | { /** Said, as a message row, when there are no rows. */ empty: ReactNode; emptyState?: never }
  | { /** Fills the full-width row itself when there are no rows (an EmptyState). */ emptyState: ReactNode; empty?: never }
);

/** A table body's rows for one query: one full-width row while it loads, fails or is empty; else a row per item. */
export function QueryRows<T>({ query, rows, colSpan, loading, failed, children, empty, emptyState }: QueryRowsProps<T>) {
  if (query.isPending) return <TableMessage colSpan={colSpan}>{loading}</TableMessage>;
  if (query.isError) return <TableMessage colSpan={colSpan}>{query.error?.message || failed}</TableMessage>;
  if (rows.length > 0) return <>{rows.map(children)}</>;
  if (emptyState === undefined) return <TableMessage colSpan={colSpan}>{empty}</TableMessage>;
  return (
    <tr>
      <td colSpan={colSpan}>{emptyState}</td>
    </tr>
  );
}
