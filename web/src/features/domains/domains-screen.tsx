import { useState } from "react";
import { ConfirmDialog } from "@/components/ui/dialog";
import { PageHeader } from "@/components/ui/page";
import { toast, toastError } from "@/components/ui/toast";
import { useDeleteDomain, useDomainSetup, type Domain } from "./api";
import { ConfigureDialog } from "./components/configure-dialog";
import { DomainSearchCard } from "./components/domain-search-card";
import { DomainsTable } from "./components/domains-table";
import { SetupCard } from "./components/setup-card";

function deleteText(d: Domain | null) {
  if (!d) return "";
  const detach = d.host ? `Trackyard detaches ${d.host} from this Worker and forgets ${d.domain}.` : `Trackyard forgets ${d.domain}.`;
  return `${detach} The registration at Namecheap${d.cloudflareZoneId ? " and the Cloudflare zone" : ""} stay yours. Campaigns using it switch to the default domain.`;
}

export default function DomainsScreen() {
  const setup = useDomainSetup();
  const remove = useDeleteDomain();
  const [configuring, setConfiguring] = useState<Domain | null>(null);
  const [deleting, setDeleting] = useState<Domain | null>(null);
  const namecheapReady = setup.data?.namecheap.configured ?? false;
  const dnsReady = namecheapReady && (setup.data?.cloudflare.configured ?? false);

  return (
    <>
      <PageHeader
        title="Domain Automation"
        description="Find, price-check and buy .xyz tracking domains, put them on Cloudflare and serve tracking from them."
      />
      {setup.data ? <SetupCard setup={setup.data} /> : null}
      {/* grid-cols-1 is minmax(0, 1fr): the wide table scrolls inside its card on a phone. */}
      <div className="grid grid-cols-1 gap-6">
        <DomainSearchCard namecheapReady={namecheapReady} />
        <DomainsTable dnsReady={dnsReady} onConfigure={setConfiguring} onDelete={setDeleting} />
      </div>
      {configuring ? <ConfigureDialog key={configuring.id} domain={configuring} onClose={() => setConfiguring(null)} /> : null}
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(open) => !open && setDeleting(null)}
        title={`Delete ${deleting?.domain ?? "domain"}?`}
        description={deleteText(deleting)}
        confirmLabel="Delete domain"
        busy={remove.isPending}
        onConfirm={() =>
          deleting &&
          remove.mutate(deleting.id, {
            onSuccess: (answer) => {
              toast({ title: "Domain deleted successfully", description: answer.message });
              setDeleting(null);
            },
            onError: (err) => toastError("Error deleting domain", err, "Failed to delete domain"),
          })
        }
      />
    </>
  );
}
