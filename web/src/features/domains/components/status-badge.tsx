import { Badge, type BadgeProps } from "@/components/ui/badge";
import type { Domain } from "../api";

const STATUSES: Record<string, { label: string; variant: NonNullable<BadgeProps["variant"]> }> = {
  pending: { label: "Pending", variant: "secondary" },
  purchasing: { label: "Purchasing", variant: "warning" },
  purchased: { label: "Purchased", variant: "outline" },
  configuring_dns: { label: "Configuring DNS", variant: "warning" },
  active: { label: "Active", variant: "success" },
  dns_failed: { label: "DNS Failed", variant: "destructive" },
  failed: { label: "Failed", variant: "destructive" },
};

/** A domain's status; one the screen does not know is shown as Failed. */
export function DomainStatusBadge({ domain }: { domain: Pick<Domain, "status" | "busy"> }) {
  const { label, variant } = STATUSES[domain.status] ?? STATUSES.failed!;
  const running = domain.busy || domain.status === "purchasing";
  return (
    <Badge variant={variant} className="gap-1.5">
      {running ? <span className="size-2.5 animate-spin rounded-full border-[1.5px] border-current border-t-transparent" aria-hidden="true" /> : null}
      {label}
    </Badge>
  );
}
