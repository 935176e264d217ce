import { ShieldAlert } from "lucide-react";
import { Card, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { formatDate, formatNumber } from "@/lib/format";
import type { RefusedClicks } from "../api";

/**
 * Clicks and exits the per-IP rate limit did not store (the visitors were still sent on), per day
 * and campaign. Shown only when there are any.
 */
export function RefusedClicksCard({ refused }: { refused: RefusedClicks | undefined }) {
  if (!refused || refused.days.length === 0) return null;
  return (
    <Card data-testid="refused-clicks">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <ShieldAlert className="size-4 text-amber-700" aria-hidden="true" />
          Refused by the rate limit
        </CardTitle>
        <CardDescription>
          {formatNumber(refused.clicks)} clicks and {formatNumber(refused.exits)} exits from addresses over the per-IP limit were not stored. Those visitors
          were still redirected.
        </CardDescription>
      </CardHeader>
      <Table>
        <TableHeader>
          <TableRow>
            <TableHead>Day</TableHead>
            <TableHead>Campaign</TableHead>
            <TableHead className="text-right">Clicks</TableHead>
            <TableHead className="text-right">Exits</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {refused.days.map((d) => (
            <TableRow key={`${d.date}-${d.campaignId}`}>
              <TableCell className="whitespace-nowrap">{formatDate(d.date)}</TableCell>
              <TableCell className="max-w-56 truncate" title={d.campaignName ?? undefined}>
                {d.campaignName ?? `Campaign ${d.campaignId}`}
              </TableCell>
              <TableCell className="tabular text-right">{formatNumber(d.clicks)}</TableCell>
              <TableCell className="tabular text-right">{formatNumber(d.exits)}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Card>
  );
}
