/**
 * The app (the React app, sign-in, /api, the CAKE postback) answers only on its own hosts; every
 * other host that reaches this Worker is a tracking domain, where only the tracking routes answer
 * (routes/tracking.ts, mounted ahead of this) and everything else is a plain 404. So an ad's
 * domain does not lead to the admin sign-in, and a new custom domain serves tracking only until it
 * is listed in APP_HOSTS (README "Configuration").
 *
 * An allow-list decided from the request's host and two vars, with no D1 read: the app's pages and
 * /api are hot, and a tracking domain needs no row to be refused.
 */
import { createMiddleware } from "hono/factory";
import { DEFAULT_WORKER_NAME } from "../domains/config";
import type { AppEnv, AppHostVars, DomainVars } from "../env";
import { isLoopback } from "../lib/hosts";

/** One APP_HOSTS entry as a host name: `app.example.com`, also written with a scheme, port or path. */
function hostOf(entry: string): string | null {
  try {
    return new URL(entry.includes("://") ? entry : `https://${entry}`).hostname.replace(/\.$/, "") || null;
  } catch {
    return null;
  }
}

let listed: { raw: string; hosts: ReadonlySet<string> } | null = null;

/** APP_HOSTS as a set of host names, parsed once per isolate for the value it has. */
function listedHosts(raw: string): ReadonlySet<string> {
  if (listed?.raw !== raw) {
    const hosts = raw
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean)
      .map(hostOf)
      .filter((host): host is string => host !== null);
    listed = { raw, hosts: new Set(hosts) };
  }
  return listed.hosts;
}

/**
 * Cloudflare's hosts for this Worker: `<worker name>.<account subdomain>.workers.dev`, and its
 * version URLs `<version prefix or alias>-<worker name>.<account subdomain>.workers.dev`.
 */
function isOwnWorkersDev(labels: string[], workerName: string): boolean {
  const first = labels[0]!;
  return first === workerName || first.endsWith(`-${workerName}`);
}

/**
 * Whether `hostname` (a URL's, so lower case, IPv6 in brackets) is one of the app's hosts: this
 * machine (`npm start`, `npm run dev`, `wrangler dev`, any port), the Worker's workers.dev host
 * (WORKER_NAME, as for domain automation), or one listed in APP_HOSTS (comma-separated).
 */
export function isAppHost(hostname: string, env: AppHostVars & DomainVars): boolean {
  const host = hostname.replace(/\.$/, "");
  if (isLoopback(host)) return true;
  const labels = host.split(".");
  if (labels.length === 4 && labels[2] === "workers" && labels[3] === "dev") {
    const workerName = env.WORKER_NAME?.trim() || DEFAULT_WORKER_NAME;
    if (isOwnWorkersDev(labels, workerName)) return true;
    // Only this Worker's own workers.dev hosts route here: another name means WORKER_NAME is not
    // the Worker's name, and the app would be unreachable on its workers.dev host.
    console.log(
      `app hosts: ${host} is not an app host because WORKER_NAME is "${workerName}": set WORKER_NAME to the Worker's name, or add the host to APP_HOSTS`,
    );
  }
  return listedHosts(env.APP_HOSTS ?? "").has(host);
}

/** A tracking domain's answer to anything but a tracking route: nothing to render, follow or index. */
const NOT_HERE_HEADERS = {
  "Content-Type": "text/plain; charset=utf-8",
  "Cache-Control": "no-store",
  "X-Content-Type-Options": "nosniff",
  "X-Robots-Tag": "noindex, nofollow",
  "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
  "Strict-Transport-Security": "max-age=31536000; includeSubDomains",
};

export const appHostsOnly = createMiddleware<AppEnv>(async (c, next) => {
  if (isAppHost(new URL(c.req.url).hostname, c.env)) return next();
  return new Response("Not found", { status: 404, headers: NOT_HERE_HEADERS });
});
