import type { UseMutationResult } from "@tanstack/react-query";
import { Globe2, Trash2 } from "lucide-react";
import { Instant, ZoneOfColumn } from "@/components/instant";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { EmptyState } from "@/components/ui/page";
import { QueryRows, Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { toast, toastError } from "@/components/ui/toast";
import { formatMoney } from "@/lib/format";
import { useDomains, useMigrateToWorkers, useUpdateNameservers, type Domain } from "../api";
import { DomainStatusBadge } from "./status-badge";

interface Props {
  /** Cloudflare (and Namecheap) settings present: the DNS actions can run. */
  dnsReady: boolean;
  onConfigure(domain: Domain): void;
  onDelete(domain: Domain): void;
}

/** 'Purchased Domains': every domain with its status and the actions its status allows. */
export function DomainsTable({ dnsReady, onConfigure, onDelete }: Props) {
  const domains = useDomains();
  const rows = domains.data ?? [];
  return (
    <Card>
      <CardHeader>
        <CardTitle>Purchased Domains</CardTitle>
        <CardDescription>Statuses update by themselves while a purchase or configuration runs.</CardDescription>
      </CardHeader>
      <Table aria-label="Purchased Domains" phone="cards">
        <TableHeader>
          <TableRow>
            <TableHead>Domain</TableHead>
            <TableHead>Status</TableHead>
            <TableHead>
              Created
              <ZoneOfColumn />
            </TableHead>
            <TableHead>Order ID</TableHead>
            <TableHead>Error</TableHead>
            <TableHead className="text-right">Actions</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          <QueryRows
            query={domains}
            rows={rows}
            colSpan={6}
            loading="Loading domains..."
            emptyState={
              <EmptyState icon={<Globe2 />} title="No domains purchased yet">
                Check a .xyz name above and buy it: it appears here, ready to configure.
              </EmptyState>
            }
          >
            {(d) => <DomainRow key={d.id} domain={d} dnsReady={dnsReady} onConfigure={onConfigure} onDelete={onDelete} />}
          </QueryRows>
        </TableBody>
      </Table>
    </Card>
  );
}

interface StepButtonProps {
  id: number;
  mutation: UseMutationResult<{ message: string }, Error, number>;
  disabled: boolean;
  label: string;
  pendingLabel: string;
  /** The success toast's title; its description is the server's message. */
  success: string;
  /** The failure toast's title and its fallback text when the server says nothing. */
  failure: [string, string];
}

/** A row action that runs one step on the domain and toasts its outcome. */
function StepButton({ id, mutation, disabled, label, pendingLabel, success, failure }: StepButtonProps) {
  return (
    <Button
      size="sm"
      variant="secondary"
      disabled={disabled}
      onClick={() =>
        mutation.mutate(id, {
          onSuccess: (answer) => toast({ title: success, description: answer.message }),
          onError: (err) => toastError(failure[0], err, failure[1]),
        })
      }
    >
      {mutation.isPending ? pendingLabel : label}
    </Button>
  );
}

function DomainRow({ domain: d, dnsReady, onConfigure, onDelete }: { domain: Domain } & Omit<Props, "domain">) {
  const updateNs = useUpdateNameservers();
  const migrate = useMigrateToWorkers();
  const [explainingMigrate, setExplainingMigrate] = useState(false);
  const busy = d.busy || updateNs.isPending || migrate.isPending;
  const runMigrate = () =>
    migrate.mutate(d.id, {
      onSuccess: (answer) => {
        setExplainingMigrate(false);
        toast({ title: "Migrated to Workers", description: answer.message });
      },
      onError: (err) => {
        setExplainingMigrate(false);
        toastError("Error migrating to Workers", err, "Failed to migrate to Workers");
      },
    });
  return (
    <>
      <TableRow>
        <TableCell cardRole="title" className="min-w-44">
          <div className="font-medium text-slate-900">{d.domain}</div>
          {d.host ? <div className="font-mono text-xs text-slate-500">{d.host}</div> : null}
        </TableCell>
        <TableCell label="Status" className="min-w-40">
          <DomainStatusBadge domain={d} />
          {d.note ? <p className="mt-1 max-w-56 text-xs text-slate-500">{d.note}</p> : null}
        </TableCell>
        <TableCell label="Created" className="whitespace-nowrap text-slate-600">
          <Instant at={d.createdAt} show="day" />
        </TableCell>
        <TableCell label="Order ID" className="tabular whitespace-nowrap text-slate-600">
          {d.purchaseOrderId ?? "—"}
          {d.purchaseAmount ? <div className="text-xs text-slate-500">{formatMoney(d.purchaseAmount)}</div> : null}
        </TableCell>
        <TableCell label="Error" className="min-w-48 max-w-sm">
          {d.errorMessage ? <p className="text-xs leading-relaxed text-danger-700">{d.errorMessage}</p> : <span className="text-slate-400">—</span>}
        </TableCell>
        <TableCell cardRole="inline">
          {/* On a phone the row is a card: its buttons sit side by side at its foot, all on screen. */}
          <div className="flex items-start justify-end gap-1.5 max-sm:justify-between">
            <div className="flex w-40 flex-col gap-1.5 empty:hidden max-sm:w-auto max-sm:flex-row max-sm:flex-wrap">
              {d.status === "purchased" ? (
                <Button size="sm" disabled={!dnsReady || busy} onClick={() => onConfigure(d)}>
                  Configure DNS
                </Button>
              ) : null}
              {d.status === "configuring_dns" || d.status === "dns_failed" ? (
                <Button size="sm" variant="secondary" disabled={!dnsReady || busy} onClick={() => onConfigure(d)}>
                  Retry Configuration
                </Button>
              ) : null}
              {d.status === "active" && d.subdomain ? (
                <Button size="sm" variant="secondary" disabled={!dnsReady || busy} onClick={() => setExplainingMigrate(true)}>
                  {migrate.isPending ? "Migrating..." : "Migrate to Workers"}
                </Button>
              ) : null}
              {d.cloudflareZoneId ? (
                <StepButton
                  id={d.id}
                  mutation={updateNs}
                  disabled={!dnsReady || busy}
                  label="Update NS"
                  pendingLabel="Updating..."
                  success="Nameservers updated"
                  failure={["Error updating nameservers", "Failed to update nameservers"]}
                />
              ) : null}
            </div>
            <Button variant="ghost" size="icon" aria-label={`Delete ${d.domain}`} disabled={busy} onClick={() => onDelete(d)}>
              <Trash2 className="text-danger-600" />
            </Button>
          </div>
        </TableCell>
      </TableRow>
      {d.host ? (
        <ConfirmDialog
          open={explainingMigrate}
          onOpenChange={(open) => !open && !migrate.isPending && setExplainingMigrate(false)}
          title={`Migrate ${d.host} to Workers?`}
          description={<MigrateExplanation host={d.host} />}
          confirmLabel={migrate.isPending ? "Migrating..." : "Migrate to Workers"}
          confirmVariant="primary"
          busy={migrate.isPending}
          onConfirm={runMigrate}
        />
      ) : null}
    </>
  );
}

/** What Migrate to Workers does (docs/integrations.md "Statuses and what each step does"), said before it runs. */
function MigrateExplanation({ host }: { host: string }) {
  return (
    <>
      <p>
        Makes <span className="break-all font-mono text-slate-900">{host}</span> a Custom Domain of this Worker, so Cloudflare serves the tracking links from it
        with its own certificate. Use it when the host was set up another way (a DNS record, or another Worker).
      </p>
      <ul className="list-disc space-y-1 pl-5">
        <li>A DNS record of {host} that points elsewhere (A, AAAA or CNAME) is deleted and replaced.</li>
        <li>If another Worker serves {host}, it is moved here.</li>
        <li>Nothing else changes: the apex, other records and the Namecheap registration stay as they are.</li>
        <li>Safe to run again: when {host} is already attached here, nothing changes.</li>
      </ul>
    </>
  );
}
