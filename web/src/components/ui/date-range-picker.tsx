import { CalendarDays } from "lucide-react";
import { Popover } from "radix-ui";
import { useState } from "react";
import type { DateRange } from "react-day-picker";
import { cn } from "@/lib/cn";
import { fromDay, rangeLabel, toDay, type DayRange } from "@/lib/date-ranges";
import { onDemand } from "@/lib/on-demand";
import { useReportDays } from "@/lib/report-days";
import { Button } from "./button";
import { Spinner } from "./spinner";

// Fetched on the first hover, focus or opening of a picker, not with the screen.
const calendarChunk = onDemand(() => import("./date-range-calendar"));

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
  const calendar = calendarChunk.useModule(open);

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
        <Button
          variant="secondary"
          className={cn("justify-start font-normal", className)}
          aria-label={`Date range: ${rangeLabel(value)}`}
          onPointerEnter={() => void calendarChunk.preload().catch(() => undefined)}
          onFocus={() => void calendarChunk.preload().catch(() => undefined)}
        >
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
          {calendar.module ? (
            <calendar.module.DateRangeCalendar
              draft={draft}
              setDraft={setDraft}
              today={today}
              timeZone={days.timeZone}
              zoneIsReport={days.known}
              onCancel={() => setOpen(false)}
              onApply={apply}
            />
          ) : (
            // The calendar's size, so the popover does not jump when it arrives.
            <div className="grid h-96 w-[min(40rem,calc(100vw-1rem))] place-items-center p-6 text-sm text-slate-500">
              {calendar.failed ? (
                <p role="alert">Could not load the calendar. Check your connection and reload the page.</p>
              ) : (
                <Spinner label="Loading the calendar" />
              )}
            </div>
          )}
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}
