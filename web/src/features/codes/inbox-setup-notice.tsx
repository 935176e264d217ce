import { AlertTriangle } from "lucide-react";
import { ReadmeLink } from "@/components/readme-link";
import { Card } from "@/components/ui/card";
import { useInboxSetup } from "./api";

/** For admins: what the inbox's settings keep out or let in, and what to set (nothing for members, or when all is set). */
export function InboxSetupNotice() {
  const setup = useInboxSetup();
  const warnings = setup.data?.warnings ?? [];
  if (!warnings.length) return null;
  return (
    <Card className="mb-6 border-amber-200 bg-amber-50" data-testid="inbox-setup">
      <div className="flex items-start gap-3 p-4">
        <AlertTriangle className="mt-0.5 size-5 shrink-0 text-amber-600" aria-hidden="true" />
        <div className="min-w-0 text-sm text-amber-900">
          <h2 className="font-semibold">The code inbox is not fully set up</h2>
          <ul className="mt-1 list-disc pl-5">
            {warnings.map((w) => (
              <li key={w} className="break-words">
                {w}
              </li>
            ))}
          </ul>
          <p className="mt-2 text-amber-800">Set them as vars of the Worker (wrangler.toml or the dashboard) and deploy. Only admins see this.</p>
          <div className="mt-1">
            <ReadmeLink section="Verification codes" />
          </div>
        </div>
      </div>
    </Card>
  );
}
