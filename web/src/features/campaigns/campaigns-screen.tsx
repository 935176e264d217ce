import { useQuery } from "@tanstack/react-query";
import { AlertTriangle, Code2, Link2, Megaphone, Plus, Split } from "lucide-react";
import { useState } from "react";
import { Link } from "react-router";
import { DeletionImpactSummary, useDeletionImpact } from "@/components/deletion-impact";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { useCopy } from "@/components/ui/copy-button";
import { DeleteDialog } from "@/components/ui/delete-dialog";
import { EmptyState, PageHeader } from "@/components/ui/page";
import { Switch } from "@/components/ui/switch";
import { RowActions } from "@/components/ui/row-actions";
import { QueryRows, Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { toast, toastError } from "@/components/ui/toast";
import { isAdmin, useUser } from "@/lib/auth";
import { trackingDomainsQuery, useCampaigns, useDeleteCampaign, useUpdateCampaign, type Campaign } from "./api";
import { CampaignDialog } from "./components/campaign-dialog";
import { CodeDialog } from "./components/code-dialog";

function CopyUtmButton({ campaign }: { campaign: Campaign }) {
  const { copy } = useCopy("Copied!");
  return (
    <Button
      size="sm"
      variant="secondary"
      onClick={() =>
        campaign.trackingUrl
          ? copy(campaign.trackingUrl, "Tracking URL copied to clipboard")
          : toast({ title: "Redirect Domain Not Configured", description: "Set a redirect domain in Settings first.", variant: "destructive" })
      }
    >
      <Link2 />
      Copy UTM
    </Button>
  );
}

/** BH Toggle in words: off sends paid traffic to a holding page, and that must not go unnoticed. */
function RedirectState({ id, on }: { id: string; on: boolean }) {
  return on ? (
    <span id={id} className="whitespace-nowrap text-xs text-slate-500">
      To lander
    </span>
  ) : (
    <span id={id} className="whitespace-nowrap text-xs font-medium text-amber-700">
      Off: visitors see a holding page
    </span>
  );
}

export default function CampaignsScreen() {
  const { data: user } = useUser();
  const admin = isAdmin(user);
  const campaigns = useCampaigns();
  const domains = useQuery({ ...trackingDomainsQuery, enabled: admin });
  const update = useUpdateCampaign();
  const remove = useDeleteCampaign();
  const [editing, setEditing] = useState<Campaign | null | undefined>(undefined);
  const [viewing, setViewing] = useState<Campaign | null>(null);
  const [deleting, setDeleting] = useState<Campaign | null>(null);
  const impact = useDeletionImpact("campaigns", deleting);
  const rows = campaigns.data ?? [];

  const toggle = (c: Campaign, bhToggle: boolean) =>
    // docs/screens.md §4: the list's switch sends only the toggle.
    update.mutate(
      { id: c.id, bhToggle },
      {
        onSuccess: () =>
          toast({
            title: "Campaign updated",
            description: `${c.name}: redirect to lander ${bhToggle ? "on" : "off: visitors now see a holding page, not the lander"}`,
          }),
        onError: (err) => toastError("Error", err, "Failed to update campaign"),
      },
    );

  return (
    <>
      <PageHeader
        title="Campaigns"
        description="Tracking links for your ads, and where they send visitors."
        actions={
          admin ? (
            <Button onClick={() => setEditing(null)}>
              <Plus />
              Create Campaign
            </Button>
          ) : null
        }
      />
      {admin && domains.data && domains.data.defaultRedirectBase === null ? (
        <Card className="mb-6 border-danger-200 bg-danger-50">
          <div className="flex items-start gap-3 p-4">
            <AlertTriangle className="mt-0.5 size-5 shrink-0 text-danger-600" aria-hidden="true" />
            <div>
              <h2 className="font-semibold text-danger-700">Redirect Domain Not Configured</h2>
              <p className="mt-1 text-sm text-danger-700">
                Tracking links need a redirect domain.{" "}
                <Link to="/settings" className="font-medium underline">
                  Set one in Settings
                </Link>
                .
              </p>
            </div>
          </div>
        </Card>
      ) : null}
      <Card>
        <Table aria-label="Campaigns" phone="cards">
          <TableHeader>
            <TableRow>
              <TableHead>Campaign Name</TableHead>
              <TableHead>Lander</TableHead>
              <TableHead>BH Toggle</TableHead>
              <TableHead>Copy UTM</TableHead>
              <TableHead>View Code</TableHead>
              <TableHead className="text-right">Actions</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            <QueryRows
              query={campaigns}
              rows={rows}
              colSpan={6}
              loading="Loading campaigns..."
              emptyState={
                <EmptyState icon={<Megaphone />} title="No campaigns yet">
                  {admin ? "Click Create Campaign to get your first tracking link." : "An admin has not created any campaigns yet."}
                </EmptyState>
              }
            >
              {(c) => (
                <TableRow key={c.id}>
                  <TableCell cardRole="title" className="font-medium text-slate-900">
                    {c.name}
                  </TableCell>
                  <TableCell label="Lander" className="text-slate-600">
                    {c.landerName ?? "Unknown"}
                  </TableCell>
                  <TableCell label="BH Toggle">
                    <div className="flex items-center gap-2">
                      <Switch
                        checked={c.bhToggle}
                        disabled={!admin || update.isPending}
                        onCheckedChange={(on) => toggle(c, on)}
                        aria-label={`Redirect ${c.name} to its lander`}
                        aria-describedby={`redirect-state-${c.id}`}
                      />
                      <RedirectState id={`redirect-state-${c.id}`} on={c.bhToggle} />
                    </div>
                  </TableCell>
                  <TableCell cardRole="inline">
                    <CopyUtmButton campaign={c} />
                  </TableCell>
                  <TableCell cardRole="inline">
                    <Button size="sm" variant="secondary" onClick={() => setViewing(c)}>
                      <Code2 />
                      View Code
                    </Button>
                  </TableCell>
                  <TableCell cardRole="actions">
                    <div className="flex items-center justify-end gap-1">
                      {/* Its landers, offers, weights and rule paths: a screen of its own (docs/traffic-distribution.md). */}
                      <Button asChild variant="secondary" size="sm" aria-label={`Traffic distribution of ${c.name}`}>
                        <Link to={`/campaigns/${c.id}/paths`}>
                          <Split />
                          Traffic
                        </Link>
                      </Button>
                      {admin ? <RowActions name={c.name} onEdit={() => setEditing(c)} onDelete={() => setDeleting(c)} /> : null}
                    </div>
                  </TableCell>
                </TableRow>
              )}
            </QueryRows>
          </TableBody>
        </Table>
      </Card>
      {editing !== undefined ? <CampaignDialog key={editing?.id ?? "new"} campaign={editing} onClose={() => setEditing(undefined)} /> : null}
      {viewing ? <CodeDialog campaign={viewing} onClose={() => setViewing(null)} /> : null}
      <DeleteDialog
        item={deleting}
        onClose={() => setDeleting(null)}
        remove={remove}
        noun="campaign"
        preparing={impact.isPending}
        description={(item) => (
          <DeletionImpactSummary
            name={item?.name ?? "this campaign"}
            kind="campaign"
            impact={impact}
            consequence="Ads still pointing at its link will get a not-found page. Revenue and spend already synced stay in the Stats totals. This cannot be undone."
          />
        )}
      />
    </>
  );
}
