import { AlertTriangle } from "lucide-react";
import { CopyButton } from "@/components/ui/copy-button";
import { Dialog } from "@/components/ui/dialog";
import { HOLDING_PAGE_TEXT } from "../../../../../worker/src/schemas/campaigns";
import type { Campaign } from "../api";

function CodeBlock({ code, label }: { code: string; label: string }) {
  return (
    <div className="flex items-start gap-2">
      <pre className="min-w-0 flex-1 overflow-x-auto whitespace-pre-wrap break-all rounded-md border border-slate-200 bg-slate-50 p-3 font-mono text-xs text-slate-800">
        {code}
      </pre>
      <CopyButton text={code} label={label} />
    </div>
  );
}

/** "Tracking Setup for …": the ad's tracking URL, the lander's exit script, and how they fit. */
export function CodeDialog({ campaign, onClose }: { campaign: Campaign; onClose(): void }) {
  const exitSnippet =
    campaign.exitScript && campaign.exitUrl
      ? `${campaign.exitScript}\n\n<!-- Mark your offer links with data-exit: -->\n<a href="${campaign.exitUrl}" data-exit>Claim your offer</a>`
      : null;
  return (
    <Dialog open onOpenChange={(o) => !o && onClose()} title={`Tracking Setup for ${campaign.name}`} className="max-w-2xl">
      {campaign.bhToggle ? null : (
        <div role="note" className="flex items-start gap-2 rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900">
          <AlertTriangle className="mt-0.5 size-4 shrink-0 text-amber-600" aria-hidden="true" />
          <p>
            <strong>Redirect is off (BH Toggle).</strong> Visitors who tap this ad see a plain page saying &ldquo;{HOLDING_PAGE_TEXT}&rdquo; and never reach{" "}
            {campaign.landerName ?? "the lander"}. Their clicks are still recorded. Turn BH Toggle on in the campaign list to send them to the lander.
          </p>
        </div>
      )}
      <section className="grid gap-2">
        <h3 className="text-sm font-semibold text-slate-900">1. Ad tracking URL</h3>
        <p className="text-xs text-slate-500">Paste this as the destination URL of your TikTok ad. TikTok fills in the __MACROS__.</p>
        {campaign.trackingUrl ? (
          <CodeBlock code={campaign.trackingUrl} label="Copy tracking URL" />
        ) : (
          <p className="text-sm text-danger-600">No redirect domain is configured: set one in Settings.</p>
        )}
      </section>
      <section className="grid gap-2">
        <h3 className="text-sm font-semibold text-slate-900">2. Universal lander exit script</h3>
        {exitSnippet ? (
          <>
            <p className="text-xs text-slate-500">Paste into your lander's HTML, before &lt;/body&gt;. It works on any lander, on any domain.</p>
            <CodeBlock code={exitSnippet} label="Copy exit script" />
          </>
        ) : (
          <p className="flex items-center gap-2 rounded-md bg-amber-50 p-3 text-sm text-amber-800">
            <AlertTriangle className="size-4 shrink-0" aria-hidden="true" />
            No offer configured for this campaign. Choose an offer in Edit to get the exit script.
          </p>
        )}
      </section>
      <section className="rounded-md bg-slate-50 p-4 text-sm text-slate-600">
        <h3 className="mb-2 font-semibold text-slate-900">How it works</h3>
        <ol className="list-decimal space-y-1 pl-5">
          <li>A visitor taps your ad and reaches the tracking URL: the click is recorded with the ad's campaign, ad group, ad and placement.</li>
          <li>
            With BH Toggle on, they are sent to the lander with <code className="font-mono text-xs">cid</code> and{" "}
            <code className="font-mono text-xs">clickId</code> added; with it off they see a holding page.
          </li>
          <li>The exit script remembers the click while the visitor browses the lander and points the offer links at the exit URL.</li>
          <li>
            Tapping an offer link records the exit and sends the visitor to the offer with your UTM template filled in, so the network reports revenue per
            click.
          </li>
        </ol>
      </section>
    </Dialog>
  );
}
