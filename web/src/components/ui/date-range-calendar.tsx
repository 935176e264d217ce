import { startOfMonth, subMonths } from "date-fns";
import type { CSSProperties } from "react";
import { DayPicker, type DateRange } from "react-day-picker";
import "react-day-picker/style.css";
import { fromDay, QUICK_RANGES, toDay } from "@/lib/date-ranges";
import { Button } from "./button";

const CALENDAR_COLOURS = {
  "--rdp-accent-color": "var(--color-brand-700)",
  "--rdp-accent-background-color": "var(--color-brand-50)",
  "--rdp-today-color": "var(--color-brand-700)",
  "--rdp-day-height": "38px",
  "--rdp-day-width": "38px",
  "--rdp-day_button-height": "36px",
  "--rdp-day_button-width": "36px",
  "--rdp-months-gap": "1.5rem",
} as CSSProperties;

export interface CalendarProps {
  draft: DateRange | undefined;
  setDraft(draft: DateRange | undefined): void;
  today: Date;
  /** The zone whose days are shown, and whether it is the report time zone. */
  timeZone: string;
  zoneIsReport: boolean;
  onCancel(): void;
  onApply(): void;
}

/**
 * The date range picker's open part: the quick ranges, two months and Apply. Its own chunk with
 * the calendar library (date-range-picker.tsx loads it when the picker is first hovered, focused
 * or opened), so no screen's first load carries it.
 */
export function DateRangeCalendar({ draft, setDraft, today, timeZone, zoneIsReport, onCancel, onApply }: CalendarProps) {
  return (
    <div className="flex flex-col sm:flex-row">
      <ul className="flex gap-1 overflow-x-auto border-b border-slate-200 p-2 sm:flex-col sm:border-b-0 sm:border-r" aria-label="Quick ranges">
        {QUICK_RANGES.map((q) => (
          <li key={q.label}>
            <button
              type="button"
              className="w-full whitespace-nowrap rounded-md px-3 py-1.5 text-left text-sm text-slate-700 hover:bg-slate-100"
              onClick={() => {
                const r = q.range(today);
                setDraft({ from: fromDay(r.startDate), to: fromDay(r.endDate) });
              }}
            >
              {q.label}
            </button>
          </li>
        ))}
      </ul>
      <div className="p-3">
        <DayPicker
          mode="range"
          numberOfMonths={2}
          selected={draft}
          onSelect={setDraft}
          // The chosen range's last month on the right and the month before it on the left: the
          // ranges picked here are past ones, and a month after today has no day to pick.
          defaultMonth={subMonths(startOfMonth(draft?.to ?? draft?.from ?? today), 1)}
          endMonth={today}
          today={today}
          disabled={{ after: today }}
          // The library's own stylesheet sets its colours on its root (unlayered CSS beats our
          // utility classes), so ours go on the root inline.
          style={CALENDAR_COLOURS}
        />
        <p className="mt-2 text-xs text-slate-500">
          Days in <span className="font-medium text-slate-700">{timeZone}</span>
          {zoneIsReport ? " (the report time zone)" : ""}
        </p>
        <div className="mt-3 flex items-center justify-between gap-2 border-t border-slate-200 pt-3">
          <p className="tabular text-xs text-slate-500">
            {draft?.from ? toDay(draft.from) : "Start"} → {draft?.to ? toDay(draft.to) : "End"}
          </p>
          <div className="flex gap-2">
            <Button variant="secondary" size="sm" onClick={onCancel}>
              Cancel
            </Button>
            <Button size="sm" onClick={onApply} disabled={!draft?.from || !draft.to}>
              Apply
            </Button>
          </div>
        </div>
      </div>
    </div>
  );
}
