import { ChevronRight } from "lucide-react";
import {
  createContext,
  useContext,
  useLayoutEffect,
  useRef,
  useState,
  type HTMLAttributes,
  type ReactNode,
  type RefObject,
  type TdHTMLAttributes,
  type ThHTMLAttributes,
} from "react";
import { cn } from "@/lib/cn";

/**
 * How a table fits a narrow screen:
 * - "scroll" (default): it scrolls sideways inside its card, the first column stays in view, a
 *   shadow and a "more columns" button show that there is more to the right.
 * - "cards": below the `sm` breakpoint each row becomes a card: the `title` cell and the
 *   `actions` cell on its first line, every other cell on a line of its own under its `label`.
 *   For admin lists whose last column holds the row's buttons, so they stay on screen.
 */
export type PhoneLayout = "scroll" | "cards";

const TableContext = createContext<{ cards: boolean; sticky: boolean }>({ cards: false, sticky: false });

interface ScrollEdges {
  left: boolean;
  right: boolean;
}

/**
 * Whether the box can scroll further left or right, kept current on scroll and on resize of the
 * box or its content. Also publishes the box's visible width as `--table-view` so a full-width
 * message row can centre its text in what is on screen rather than across every column.
 */
function useScrollEdges(ref: RefObject<HTMLDivElement | null>): ScrollEdges {
  const [edges, setEdges] = useState<ScrollEdges>({ left: false, right: false });
  useLayoutEffect(() => {
    const box = ref.current;
    if (!box) return;
    const measure = () => {
      // Read before writing: the property dirties the box's style, and a read after it would lay
      // the page out again.
      const { clientWidth, scrollLeft, scrollWidth } = box;
      box.style.setProperty("--table-view", `${clientWidth}px`);
      const left = scrollLeft > 1;
      const right = scrollLeft + clientWidth < scrollWidth - 1;
      setEdges((e) => (e.left === left && e.right === right ? e : { left, right }));
    };
    box.addEventListener("scroll", measure, { passive: true });
    const observer = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(measure);
    // The observer's first call comes once the browser has laid the page out, before it paints: a
    // measure here, in the middle of React's commit, forced a layout of the whole page of its own
    // (about 70 ms of a fresh load's first render in a profile of the Click Log).
    if (observer) {
      observer.observe(box);
      if (box.firstElementChild) observer.observe(box.firstElementChild);
    } else measure();
    return () => {
      box.removeEventListener("scroll", measure);
      observer?.disconnect();
    };
  }, [ref]);
  return edges;
}

/**
 * The sideways-scrolling box every wide table sits in (ours, and the stats table's own). When the
 * table is wider than the box: a shadow on each side that has more, a button that scrolls right,
 * and the box itself is a focusable, named region so the arrow keys scroll it.
 */
export function TableScroller({ children, label, className }: { children: ReactNode; label?: string; className?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const { left, right } = useScrollEdges(ref);
  const scrolls = left || right;
  return (
    <div className={cn("group/scroller relative w-full min-w-0", className)} data-scroll-left={left || undefined} data-scroll-right={right || undefined}>
      <div
        ref={ref}
        className="w-full overflow-x-auto focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-brand-600"
        tabIndex={scrolls ? 0 : undefined}
        role={scrolls ? "region" : undefined}
        aria-label={scrolls ? `${label ?? "Table"}, scrolls sideways` : undefined}
      >
        {children}
      </div>
      <div
        aria-hidden="true"
        className={cn(
          "pointer-events-none absolute inset-y-0 right-0 w-10 bg-linear-to-l from-slate-900/12 to-transparent transition-opacity",
          right ? "opacity-100" : "opacity-0",
        )}
      />
      {right ? (
        <button
          type="button"
          // Mouse users without a trackpad have no other way to reach the columns on the right.
          tabIndex={-1}
          aria-hidden="true"
          title="More columns to the right"
          onClick={() => ref.current?.scrollBy({ left: ref.current.clientWidth * 0.8, behavior: "smooth" })}
          className="absolute right-1.5 top-1.5 z-20 flex size-7 items-center justify-center rounded-full border border-slate-200 bg-white/95 text-slate-600 shadow-sm hover:text-slate-900"
        >
          <ChevronRight className="size-4" />
        </button>
      ) : null}
    </div>
  );
}

/** The shadow a sticky first column casts once the columns under it have scrolled. */
export const stickyShadowClass = "group-data-[scroll-left]/scroller:shadow-[6px_0_6px_-6px_rgb(15_23_42/0.25)]";

interface TableProps extends HTMLAttributes<HTMLTableElement> {
  /** Keeps the first column in view while the others scroll sideways (default on). */
  stickyFirstColumn?: boolean;
  phone?: PhoneLayout;
  /** Names the scrolling region; defaults to the table's aria-label. */
  scrollLabel?: string;
}

/** A table that fits any width: it scrolls sideways inside its card, or becomes cards on a phone. */
export function Table({ className, stickyFirstColumn = true, phone = "scroll", scrollLabel, ...props }: TableProps) {
  const cards = phone === "cards";
  const table = <table className={cn("w-full caption-bottom border-collapse text-sm", cards && "max-sm:block", className)} {...props} />;
  return (
    <TableContext.Provider value={{ cards, sticky: stickyFirstColumn }}>
      <TableScroller label={scrollLabel ?? props["aria-label"]}>{table}</TableScroller>
    </TableContext.Provider>
  );
}

export function TableHeader({ className, ...props }: HTMLAttributes<HTMLTableSectionElement>) {
  const { cards } = useContext(TableContext);
  return <thead className={cn("border-b border-slate-200 bg-slate-50/80", cards && "max-sm:hidden", className)} {...props} />;
}

export function TableBody({ className, ...props }: HTMLAttributes<HTMLTableSectionElement>) {
  const { cards } = useContext(TableContext);
  return <tbody className={cn("[&_tr:last-child]:border-0", cards && "max-sm:block", className)} {...props} />;
}

export function TableFooter({ className, ...props }: HTMLAttributes<HTMLTableSectionElement>) {
  const { cards } = useContext(TableContext);
  // The pinned first cell is opaque white in the body; in the footer it takes the footer's grey.
  return (
    <tfoot
      className={cn("border-t border-slate-300 bg-slate-50 font-semibold [&>tr>td:first-child]:bg-slate-50", cards && "max-sm:block", className)}
      {...props}
    />
  );
}

export function TableRow({ className, ...props }: HTMLAttributes<HTMLTableRowElement>) {
  const { cards } = useContext(TableContext);
  return (
    <tr
      className={cn(
        "group/row border-b border-slate-100 transition-colors hover:bg-slate-50/60",
        cards && "max-sm:flex max-sm:flex-wrap max-sm:items-center max-sm:gap-x-3 max-sm:gap-y-2 max-sm:px-4 max-sm:py-3",
        className,
      )}
      {...props}
    />
  );
}

interface CellProps {
  /** Right-aligned tabular figures, for money and counts. */
  numeric?: boolean;
}

/**
 * The first column's cells stick to the left edge, opaque (in "cards" only from `sm` up: a card
 * has no columns). Written out whole: Tailwind only generates classes it finds in the source.
 */
function firstCellClass({ cards, sticky }: { cards: boolean; sticky: boolean }, header: boolean) {
  if (!sticky) return null;
  return cn(
    cards ? "sm:first:sticky" : "first:sticky",
    "first:left-0 first:z-10",
    header ? "first:bg-slate-50" : "first:bg-white group-hover/row:first:bg-slate-50",
    "group-data-[scroll-left]/scroller:first:shadow-[6px_0_6px_-6px_rgb(15_23_42/0.25)]",
  );
}

export function TableHead({ className, numeric, ...props }: ThHTMLAttributes<HTMLTableCellElement> & CellProps) {
  const context = useContext(TableContext);
  return (
    <th
      scope="col"
      className={cn(
        "h-10 whitespace-nowrap px-3 text-left align-middle text-xs font-semibold uppercase tracking-wide text-slate-500",
        firstCellClass(context, true),
        numeric && "text-right",
        className,
      )}
      {...props}
    />
  );
}

interface TableCellProps extends TdHTMLAttributes<HTMLTableCellElement>, CellProps {
  /** Phone cards: the name shown before the value (usually the column's header). */
  label?: string;
  /**
   * Phone cards: `title` leads the card, `actions` sits at the end of the title's line, `inline`
   * cells share a line with each other (a group of buttons), `hidden` cells are left out of the
   * card (a phone-only cell says it in one line); any other cell has a line of its own.
   */
  cardRole?: "title" | "actions" | "inline" | "hidden";
}

export function TableCell({ className, numeric, label, cardRole, ...props }: TableCellProps) {
  const context = useContext(TableContext);
  const { cards } = context;
  return (
    <td
      data-label={cards ? label : undefined}
      className={cn(
        "px-3 py-2.5 align-middle",
        firstCellClass(context, false),
        numeric && "tabular text-right",
        className,
        cards && cardCellClass(cardRole, label !== undefined),
      )}
      {...props}
    />
  );
}

/** A cell's place in its phone card (see TableCell's `cardRole`). */
function cardCellClass(role: TableCellProps["cardRole"], labelled: boolean) {
  const base = "max-sm:p-0 max-sm:text-left";
  if (role === "title") return cn(base, "max-sm:order-first max-sm:min-w-0 max-sm:flex-1 max-sm:text-base");
  if (role === "actions") return cn(base, "max-sm:order-first max-sm:ml-auto");
  if (role === "inline") return cn(base, "max-sm:block");
  if (role === "hidden") return "max-sm:hidden";
  return cn(
    base,
    "max-sm:flex max-sm:min-w-0 max-sm:basis-full max-sm:items-center max-sm:gap-3 max-sm:[&>*]:min-w-0",
    labelled &&
      "max-sm:before:w-24 max-sm:before:shrink-0 max-sm:before:text-xs max-sm:before:font-medium max-sm:before:uppercase max-sm:before:tracking-wide max-sm:before:text-slate-500 max-sm:before:content-[attr(data-label)]",
  );
}

/**
 * Keeps a full-width row's content (loading, empty and error states) within the part of the table
 * on screen: a message centred across twenty columns would be cut off on a phone.
 */
export const InViewport = ({ children, className }: { children: ReactNode; className?: string }) => (
  <div className={cn("sticky left-0 w-[var(--table-view,100%)] max-w-full", className)}>{children}</div>
);

/** One full-width row for loading and empty states. */
export function TableMessage({ colSpan, children }: { colSpan: number; children: ReactNode }) {
  const { cards } = useContext(TableContext);
  return (
    <tr className={cn(cards && "max-sm:block")}>
      <td colSpan={colSpan} className={cn("py-10 text-center text-sm text-slate-500", cards && "max-sm:block")}>
        <InViewport className="px-3">{children}</InViewport>
      </td>
    </tr>
  );
}

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
  const { cards } = useContext(TableContext);
  if (query.isPending) return <TableMessage colSpan={colSpan}>{loading}</TableMessage>;
  if (query.isError) return <TableMessage colSpan={colSpan}>{query.error?.message || failed}</TableMessage>;
  if (rows.length > 0) return <>{rows.map(children)}</>;
  if (emptyState === undefined) return <TableMessage colSpan={colSpan}>{empty}</TableMessage>;
  return (
    <tr className={cn(cards && "max-sm:block")}>
      <td colSpan={colSpan} className={cn(cards && "max-sm:block")}>
        <InViewport>{emptyState}</InViewport>
      </td>
    </tr>
  );
}
