import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableMessage, TableRow } from "@/components/ui/table";
import { useReportTime } from "@/lib/report-time";
import type { Firing } from "./api";
import { figuresText } from "./figures-text";

const STATUS: Record<Firing["status"], { label: string; variant: "success" | "warning" | "destructive" | "secondary" }> = {
  done: { label: "Done", variant: "success" },
  acting: { label: "Acting", variant: "secondary" },
  problem: { label: "Problem", variant: "destructive" },
  skipped: { label: "Skipped", variant: "warning" },
};

const ACTION: Record<string, string> = { alert: "Alert only", pause: "Pause ad groups", resume: "Resume ad groups", none: "Nothing" };

/** Each firing with the figures that triggered it, the action taken and every answer (TikTok's, each channel's). */
export function FiringHistory({ firings }: { firings: Firing[] }) {
  const { dateTime, timeZone } = useReportTime();
  return (
    <Card className="mt-6">
      <CardHeader>
        <CardTitle>History</CardTitle>
        <CardDescription>Times in {timeZone} (the report time zone).</CardDescription>
      </CardHeader>
      <CardContent>
        <Table phone="cards" scrollLabel="Firing history">
          <TableHeader>
            <TableRow>
              <TableHead>When</TableHead>
              <TableHead>Item</TableHead>
              <TableHead>Status</TableHead>
              <TableHead>Figures</TableHead>
              <TableHead>Action</TableHead>
              <TableHead>Answers</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {firings.length === 0 ? <TableMessage colSpan={6}>The rule has not fired yet.</TableMessage> : null}
            {firings.map((f) => (
              <TableRow key={f.id}>
                <TableCell cardRole="title" className="whitespace-nowrap tabular">
                  <time dateTime={f.firedAt}>{dateTime(f.firedAt)}</time>
                </TableCell>
                <TableCell label="Item">{f.itemLabel}</TableCell>
                <TableCell cardRole="actions">
                  <Badge variant={STATUS[f.status].variant}>{STATUS[f.status].label}</Badge>
                </TableCell>
                <TableCell label="Figures" className="max-w-md text-xs">
                  {f.status === "skipped" ? "—" : figuresText(f.figures)}
                </TableCell>
                <TableCell label="Action">{ACTION[f.action] ?? f.action}</TableCell>
                <TableCell label="Answers" className="max-w-md text-xs">
                  <ul className="grid gap-0.5">
                    {f.tiktok.map((t) => (
                      <li key={`t-${t.adGroupId}`}>
                        Ad group {t.adGroupId}: {t.message}
                        {t.code ? ` (code ${t.code})` : ""}
                      </li>
                    ))}
                    {f.deliveries.map((d) => (
                      <li key={`d-${d.channelId}`} className={d.ok ? undefined : "text-danger-600"}>
                        {d.detail}
                      </li>
                    ))}
                    {f.note ? <li className="text-slate-600">{f.note}</li> : null}
                  </ul>
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </CardContent>
    </Card>
  );
}
