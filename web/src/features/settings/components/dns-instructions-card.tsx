import { Info } from "lucide-react";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";

const Code = ({ children }: { children: string }) => (
  <code className="break-all rounded bg-slate-100 px-1 py-0.5 font-mono text-xs text-slate-800">{children}</code>
);

const hostOf = (base: string) => {
  try {
    return base ? new URL(base).host : null;
  } catch {
    return null;
  }
};

/** How to point the Redirect Domain at this Worker: a custom domain, or a CNAME with a route. */
export function DnsInstructionsCard({ redirectDomain }: { redirectDomain: string }) {
  const host = hostOf(redirectDomain) ?? "trk.example.com";
  return (
    <Card>
      <CardHeader>
        <CardTitle icon={Info}>DNS Instructions</CardTitle>
        <CardDescription>Point the Redirect Domain ({host}) at this Worker. Domains bought on the Domains screen are set up for you.</CardDescription>
      </CardHeader>
      <CardContent>
        <ol className="list-decimal space-y-2 pl-5 text-sm text-slate-700">
          <li>
            Publish the app: <Code>npm run build && npx wrangler deploy</Code>.
          </li>
          <li>
            <span className="font-medium">Domain on Cloudflare (recommended):</span> Workers &amp; Pages → this Worker → Settings → Domains &amp; Routes → Add →
            Custom domain → <Code>{host}</Code>. Cloudflare creates the DNS record and the certificate.
          </li>
          <li>
            <span className="font-medium">Or a CNAME:</span> in the zone's DNS, a proxied (orange-cloud) CNAME <Code>{host.split(".")[0] ?? "trk"}</Code> to the
            Worker's <Code>workers.dev</Code> hostname, plus a Worker route <Code>{`${host}/*`}</Code> to this Worker. A domain whose DNS is elsewhere must move
            its nameservers to Cloudflare first.
          </li>
          <li>Wait for DNS to propagate: usually minutes, up to 48 hours.</li>
          <li>
            Check it: <Code>{`https://${host}/exit-tracker.js`}</Code> should load a script.
          </li>
        </ol>
      </CardContent>
    </Card>
  );
}
