import { formatRelative } from "@/lib/format";
import { useReportTime } from "@/lib/report-time";

/**
 * An instant shown in the report time zone (lib/report-time.ts): its date and time, its day, or
 * how long ago; the tooltip always gives the whole time with the zone named.
 */
export function Instant({ at, show = "dateTime", className }: { at: string; show?: "dateTime" | "day" | "relative"; className?: string }) {
  const time = useReportTime();
  const text = show === "day" ? time.day(at) : show === "relative" ? formatRelative(at) : time.dateTime(at);
  return (
    <time dateTime={at} title={time.named(at)} className={className}>
      {text}
    </time>
  );
}

/** A column header's zone, "(Asia/Manila)", in the header's smaller type but the zone's own case. */
export function ZoneOfColumn() {
  const { timeZone } = useReportTime();
  return <span className="font-normal normal-case tracking-normal"> ({timeZone})</span>;
}
