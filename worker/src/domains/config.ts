/**
 * Domain automation's settings, read from Worker secrets and vars (README, "Domain automation").
 * Anything missing or malformed makes that side "not configured" with the reasons, so the Domains
 * screen can say once what to set, and nothing calls Namecheap or Cloudflare half set up.
 */
import type { Bindings } from "../env";
import { secureUrl } from "../lib/hosts";

export const NAMECHEAP_PRODUCTION_URL = "https://api.namecheap.com/xml.response";
export const NAMECHEAP_SANDBOX_URL = "https://api.sandbox.namecheap.com/xml.response";
export const CLOUDFLARE_API_BASE = "https://api.cloudflare.com/client/v4";
/** The Worker's name in wrangler.toml: what custom domains are attached to unless WORKER_NAME says otherwise. */
export const DEFAULT_WORKER_NAME = "trackyard";

export type NamecheapRoute =
  | { mode: "direct" }
  /** An HTTPS relay on a static-IP host (README: its nginx config), locked by a shared key. */
  | { mode: "relay"; url: URL; key: string }
  /** SOCKS5 through connect() + startTls: experimental (README: the production no-SNI limitation). */
  | { mode: "socks5"; host: string; port: number; username: string; password: string };

export interface NamecheapConfig {
  apiUrl: URL;
  apiUser: string;
  apiKey: string;
  userName: string;
  clientIp: string;
  route: NamecheapRoute;
}

export interface CloudflareConfig {
  apiUrl: string;
  token: string;
  accountId: string;
  workerName: string;
}

export interface Setup<C> {
  /** Empty when configured. */
  problems: string[];
  config: C | null;
}

const value = (v: string | undefined) => v?.trim() ?? "";
const missing = (env: Bindings, names: (keyof Bindings & string)[]) => names.filter((n) => !value(env[n] as string | undefined)).map((n) => `${n} is not set`);

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
export const isIpv4 = (text: string) => IPV4.test(text);

function proxyRoute(env: Bindings, problems: string[]): NamecheapRoute | null {
  const raw = value(env.NAMECHEAP_PROXY);
  if (!raw) return { mode: "direct" };
  if (/^socks5h?:\/\//i.test(raw)) {
    let url: URL;
    try {
      // URL does not know socks5: parse it as http to read the parts.
      url = new URL(raw.replace(/^socks5h?:/i, "http:"));
    } catch {
      problems.push("NAMECHEAP_PROXY must look like socks5://user:pass@host:port");
      return null;
    }
    const port = Number(url.port || 1080);
    if (!url.hostname || !Number.isInteger(port) || port < 1 || port > 65535) {
      problems.push("NAMECHEAP_PROXY must look like socks5://user:pass@host:port");
      return null;
    }
    return {
      mode: "socks5",
      host: url.hostname.replace(/^\[|\]$/g, ""),
      port,
      username: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    };
  }
  if (!/^https?:\/\//i.test(raw)) {
    problems.push("NAMECHEAP_PROXY must be empty (direct), an https:// relay address, or socks5://user:pass@host:port");
    return null;
  }
  const url = secureUrl(raw, "NAMECHEAP_PROXY", problems);
  const key = value(env.NAMECHEAP_RELAY_KEY);
  if (!key) problems.push("NAMECHEAP_RELAY_KEY is not set (the HTTPS relay in NAMECHEAP_PROXY needs it)");
  if (!url || !key) return null;
  // The relay answers at /xml.response like Namecheap itself; a bare host means that path.
  if (url.pathname === "/" || url.pathname === "") url.pathname = "/xml.response";
  return { mode: "relay", url, key };
}

export function namecheapSetup(env: Bindings): Setup<NamecheapConfig> {
  const problems = missing(env, ["NAMECHEAP_API_USER", "NAMECHEAP_API_KEY", "NAMECHEAP_CLIENT_IP"]);
  const clientIp = value(env.NAMECHEAP_CLIENT_IP);
  if (clientIp && !isIpv4(clientIp)) problems.push("NAMECHEAP_CLIENT_IP must be the whitelisted IPv4 address, like 203.0.113.7");
  const apiUrl = secureUrl(value(env.NAMECHEAP_API_URL) || NAMECHEAP_PRODUCTION_URL, "NAMECHEAP_API_URL", problems);
  const route = proxyRoute(env, problems);
  if (problems.length || !apiUrl || !route) return { problems, config: null };
  const apiUser = value(env.NAMECHEAP_API_USER);
  return {
    problems,
    config: {
      apiUrl,
      apiUser,
      apiKey: value(env.NAMECHEAP_API_KEY),
      userName: value(env.NAMECHEAP_USERNAME) || apiUser,
      clientIp,
      route,
    },
  };
}

export function cloudflareSetup(env: Bindings): Setup<CloudflareConfig> {
  const problems = missing(env, ["CLOUDFLARE_API_TOKEN", "CLOUDFLARE_ACCOUNT_ID"]);
  const accountId = value(env.CLOUDFLARE_ACCOUNT_ID);
  if (accountId && !/^[0-9a-f]{32}$/i.test(accountId))
    problems.push("CLOUDFLARE_ACCOUNT_ID must be the 32-character account id (dashboard → Workers & Pages → Account ID)");
  const apiUrl = secureUrl(value(env.CLOUDFLARE_API_URL) || CLOUDFLARE_API_BASE, "CLOUDFLARE_API_URL", problems);
  const workerName = value(env.WORKER_NAME) || DEFAULT_WORKER_NAME;
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(workerName))
    problems.push("WORKER_NAME must be the Worker's name as in wrangler.toml (lower-case letters, digits, hyphens)");
  if (problems.length || !apiUrl) return { problems, config: null };
  return {
    problems,
    config: { apiUrl: apiUrl.toString().replace(/\/+$/, ""), token: value(env.CLOUDFLARE_API_TOKEN), accountId, workerName },
  };
}

/** How Namecheap is reached, in words for the screen. */
export function describeRoute(route: NamecheapRoute | undefined): string {
  if (!route) return "not configured";
  if (route.mode === "direct") return "direct (the Worker's own IP address, which changes)";
  if (route.mode === "relay") return `HTTPS relay at ${route.url.host}`;
  return `SOCKS5 proxy at ${route.host}:${route.port} (experimental)`;
}
