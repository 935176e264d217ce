import { Check, Clock, Copy, Inbox, KeyRound, ListChecks, RefreshCw } from "lucide-react";
import { Instant } from "@/components/instant";
import { Button } from "@/components/ui/button";
import { Card, CardHeader, CardTitle, StatCard } from "@/components/ui/card";
import { useCopy } from "@/components/ui/copy-button";
import { EmptyState, PageHeader } from "@/components/ui/page";
import { Skeleton } from "@/components/ui/spinner";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { toast, toastError } from "@/components/ui/toast";
import { formatRelative } from "@/lib/format";
import { useNow } from "@/lib/use-now";
import { useCodes, type Code } from "./api";
import { InboxSetupNotice } from "./inbox-setup-notice";

/**
 * Which service a code is from, on every width: codes that arrive together are told apart by it.
 * The subject, with the sender's address under it; the sender alone when there is no subject.
 */
function Service({ code }: { code: Code }) {
  const main = code.subject || code.sender;
  const under = code.subject && code.sender ? code.sender : null;
  if (!main) return <span className="text-slate-400">—</span>;
  return (
    // Two lines each on a phone rather than one cut short: the words that tell services apart
    // ("TikTok", a sender's domain) are often the last ones.
    <div className="grid max-w-[14rem] gap-0.5 leading-tight sm:max-w-md">
      <span className="line-clamp-2 break-words text-slate-800 sm:line-clamp-1" title={main}>
        {main}
      </span>
      {under ? (
        <span className="line-clamp-2 break-all text-xs text-slate-500 sm:line-clamp-1" title={under}>
          {under}
        </span>
      ) : null}
    </div>
  );
}

function CodeRow({ code }: { code: Code }) {
  const { copied, copy } = useCopy("Code copied!");
  const onCopy = () => copy(code.code, code.code);
  return (
    <TableRow>
      <TableCell>
        <button
          type="button"
          onClick={onCopy}
          className="rounded px-1 font-mono text-lg font-semibold tracking-wider text-slate-900 hover:bg-brand-50 hover:text-brand-800"
          aria-label={`Copy code ${code.code}`}
        >
          {code.code}
        </button>
        {/* On a phone the time sits under the code, leaving the width to the service. */}
        <div className="whitespace-nowrap px-1 text-xs text-slate-500 sm:hidden">
          <Instant at={code.receivedAt} show="relative" />
        </div>
      </TableCell>
      <TableCell className="hidden whitespace-nowrap text-slate-600 sm:table-cell">
        <Instant at={code.receivedAt} show="relative" />
      </TableCell>
      <TableCell>
        <Service code={code} />
      </TableCell>
      <TableCell className="text-right">
        <Button variant="secondary" size="icon" onClick={onCopy} aria-label={`Copy ${code.code}`}>
          {copied ? <Check className="text-success-600" data-testid="copied-icon" /> : <Copy />}
        </Button>
      </TableCell>
    </TableRow>
  );
}

export default function CodesScreen() {
  const codes = useCodes();
  // Re-render every 10 s so "x seconds ago" keeps moving while the list is unchanged.
  useNow(10_000);
  const items = codes.data?.items ?? [];
  const latest = items[0];

  const refresh = async () => {
    const result = await codes.refetch();
    if (result.isError) toastError("Error", result.error, "Failed to fetch codes");
    else toast({ title: "Refreshed", description: "Code list updated" });
  };

  return (
    <>
      <PageHeader title="Verification Code Dashboard" description="Codes taken from emails forwarded to the monitored address, newest first." />
      <InboxSetupNotice />
      <div className="grid grid-cols-1 gap-6">
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-3">
          <StatCard label="Total Codes" icon={<ListChecks />} value={codes.data ? codes.data.total.toLocaleString("en-US") : "—"} />
          <StatCard label="Latest Code" icon={<KeyRound />} value={latest ? <span className="font-mono tracking-wider">{latest.code}</span> : "—"} />
          <StatCard
            label="Last Updated"
            icon={<Clock />}
            value={<span className="text-lg">{latest ? formatRelative(latest.extractedAt) : "No codes yet"}</span>}
            note="Auto-refreshes every 2 seconds"
          />
        </div>
        <Card>
          <CardHeader className="flex-row items-center justify-between">
            <CardTitle>Verification Codes</CardTitle>
            <Button variant="secondary" size="sm" onClick={refresh} disabled={codes.isFetching && !codes.isRefetching}>
              <RefreshCw className={codes.isRefetching ? "animate-spin" : undefined} />
              Refresh
            </Button>
          </CardHeader>
          <Table aria-live="polite">
            <TableHeader>
              <TableRow>
                <TableHead>Code</TableHead>
                <TableHead className="hidden sm:table-cell">Received</TableHead>
                <TableHead>Service</TableHead>
                <TableHead className="text-right">Copy</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {codes.isPending ? (
                [0, 1, 2].map((i) => (
                  <TableRow key={i} data-testid="skeleton-row">
                    <TableCell>
                      <Skeleton className="h-6 w-24" />
                    </TableCell>
                    <TableCell className="hidden sm:table-cell">
                      <Skeleton className="h-4 w-20" />
                    </TableCell>
                    <TableCell>
                      <Skeleton className="h-4 w-32 sm:w-64" />
                    </TableCell>
                    <TableCell>
                      <Skeleton className="ml-auto h-8 w-8" />
                    </TableCell>
                  </TableRow>
                ))
              ) : codes.isError && items.length === 0 ? (
                <tr>
                  <td colSpan={4} className="px-3 py-10 text-center text-sm text-danger-600">
                    {codes.error.message || "Failed to fetch codes"}
                  </td>
                </tr>
              ) : items.length === 0 ? (
                <tr>
                  <td colSpan={4}>
                    <EmptyState icon={<Inbox />} title="No verification codes yet">
                      Codes appear here when emails are forwarded to the monitored address. The dashboard updates every 2 seconds.
                    </EmptyState>
                  </td>
                </tr>
              ) : (
                items.map((c) => <CodeRow key={c.id} code={c} />)
              )}
            </TableBody>
          </Table>
        </Card>
      </div>
    </>
  );
}
