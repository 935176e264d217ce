import { CalendarDays } from "lucide-react";
import { Popover } from "radix-ui";
import { startOfMonth, subMonths } from "date-fns";
import { useState, type CSSProperties } from "react";
import { DayPicker, type DateRange } from "react-day-picker";
import "react-day-picker/style.css";
import { cn } from "@/lib/cn";
import { fromDay, QUICK_RANGES, rangeLabel, toDay, type DayRange } from "@/lib/date-ranges";
import { useReportDays } from "@/lib/report-days";
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

interface Props {
  value: DayRange;
  onChange(value: DayRange): void;
  /** "Today" for the quick ranges; defaults to today in the report time zone. */
  today?: Date;
  className?: string;
}

/**
 * A two-month calendar with the product's quick ranges. Nothing changes until Apply, which is
 * enabled only when both ends are chosen; Cancel keeps the old range.
 */
export function DateRangePicker({ value, onChange, today: todayOverride, className }: Props) {
  const days = useReportDays();
  const today = todayOverride ?? days.today;
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState<DateRange | undefined>();

  const openWith = (o: boolean) => {
    if (o) setDraft({ from: fromDay(value.startDate), to: fromDay(value.endDate) });
    setOpen(o);
  };

  const apply = () => {
    if (!draft?.from || !draft.to) return;
    onChange({ startDate: toDay(draft.from), endDate: toDay(draft.to) });
    setOpen(false);
  };

  return (
    <Popover.Root open={open} onOpenChange={openWith}>
      <Popover.Trigger asChild>
        <Button variant="secondary" className={cn("justify-start font-normal", className)} aria-label={`Date range: ${rangeLabel(value)}`}>
          <CalendarDays />
          <span className="tabular">{rangeLabel(value)}</span>
        </Button>
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content
          align="end"
          sideOffset={6}
          className="z-50 max-h-[calc(100dvh-5rem)] max-w-[calc(100vw-1rem)] overflow-auto rounded-card border border-slate-200 bg-white shadow-xl"
        >
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
                Days in <span className="font-medium text-slate-700">{days.timeZone}</span>
                {days.known ? " (the report time zone)" : ""}
              </p>
              <div className="mt-3 flex items-center justify-between gap-2 border-t border-slate-200 pt-3">
                <p className="tabular text-xs text-slate-500">
                  {draft?.from ? toDay(draft.from) : "Start"} → {draft?.to ? toDay(draft.to) : "End"}
                </p>
                <div className="flex gap-2">
                  <Button variant="secondary" size="sm" onClick={() => setOpen(false)}>
                    Cancel
                  </Button>
                  <Button size="sm" onClick={apply} disabled={!draft?.from || !draft.to}>
                    Apply
                  </Button>
                </div>
              </div>
            </div>
          </div>
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}
