import { AlertTriangle } from "lucide-react";
import { Card } from "@/components/ui/card";
import type { DomainSetup } from "../api";

/** Says once what is missing; the rest of the screen (and of Trackyard) keeps working. */
export function SetupCard({ setup }: { setup: DomainSetup }) {
  const sides = [
    { name: "Namecheap (checking and buying)", problems: setup.namecheap.problems },
    { name: "Cloudflare (DNS and the Worker's custom domains)", problems: setup.cloudflare.problems },
  ].filter((s) => s.problems.length);
  if (!sides.length) return null;
  return (
    <Card className="mb-6 border-amber-200 bg-amber-50">
      <div className="flex items-start gap-3 p-4">
        <AlertTriangle className="mt-0.5 size-5 shrink-0 text-amber-600" aria-hidden="true" />
        <div className="min-w-0 text-sm text-amber-900">
          <h2 className="font-semibold">Domain automation is not fully set up</h2>
          {sides.map((side) => (
            <div key={side.name} className="mt-2">
              <p className="font-medium">{side.name}:</p>
              <ul className="mt-0.5 list-disc pl-5">
                {side.problems.map((p) => (
                  <li key={p} className="break-words">
                    {p}
                  </li>
                ))}
              </ul>
            </div>
          ))}
          <p className="mt-2 text-amber-800">
            Set them as Worker secrets or vars (README, "Domain automation") and reload. Everything else in Trackyard works as usual.
          </p>
        </div>
      </div>
    </Card>
  );
}
