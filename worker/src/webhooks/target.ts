/**
 * Where a webhook may be sent (docs/webhooks.md "Targets"): https:// only, and never this machine
 * or a private network by name or by address literal, checked when a subscription is made and
 * again before every delivery. WEBHOOKS_ALLOW_PRIVATE_TARGETS ("true", local use only: `npm start`
 * and the local fakes) lifts the address rule and lets plain http reach this machine.
 */
import { isLoopback } from "../lib/hosts";

/** IPv4 ranges as [first octets, prefix length]: this host, loopback, private, carrier NAT, link-local. */
const PRIVATE_V4: [number[], number][] = [
  [[0], 8],
  [[10], 8],
  [[100, 64], 10],
  [[127], 8],
  [[169, 254], 16],
  [[172, 16], 12],
  [[192, 168], 16],
];

function v4Octets(host: string): number[] | null {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return null;
  const octets = parts.map(Number);
  return octets.every((o) => o <= 255) ? octets : null;
}

function privateV4(octets: number[]): boolean {
  const value = ((octets[0]! << 24) | (octets[1]! << 16) | (octets[2]! << 8) | octets[3]!) >>> 0;
  return PRIVATE_V4.some(([start, bits]) => {
    const base = ((start[0]! << 24) | ((start[1] ?? 0) << 16)) >>> 0;
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    return (value & mask) >>> 0 === (base & mask) >>> 0;
  });
}

/** An IPv6 literal (as the URL parser writes it, compressed, brackets removed) in a range no delivery may reach. */
function privateV6(host: string): boolean {
  if (host === "::" || host === "::1") return true;
  // IPv4-mapped (::ffff:7f00:1 is 127.0.0.1): the IPv4 rule decides.
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (mapped) {
    const hi = parseInt(mapped[1]!, 16);
    const lo = parseInt(mapped[2]!, 16);
    return privateV4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  }
  const first = parseInt(host.split(":")[0] || "0", 16);
  // fc00::/7 unique-local, fe80::/10 link-local.
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80;
}

const PRIVATE_NAMES = /(^|\.)(localhost|local|internal|localdomain|home\.arpa)$/;

/** Whether a URL's hostname names this machine or a private network. */
export function isPrivateHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host.startsWith("[") && host.endsWith("]")) return privateV6(host.slice(1, -1));
  const v4 = v4Octets(host);
  if (v4) return privateV4(v4);
  return PRIVATE_NAMES.test(host) || !host.includes(".");
}

/** Why `raw` may not be a webhook target, as a sentence for a 400 or the delivery log; null: it may. */
export function webhookTargetProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "URL is not a valid address";
  }
  if (url.username || url.password) return "URL must not contain a user name or password";
  const local = allowPrivate && isLoopback(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && local)) return "URL must be an https:// address";
  if (!allowPrivate && isPrivateHost(url.hostname))
    return `URL must be a public address: ${url.hostname} is this machine or a private network (loopback, private, link-local and unique-local addresses, localhost, .local and .internal names are refused)`;
  return null;
}

/** The env switch for local use (wrangler.toml leaves it unset). */
export const allowsPrivateTargets = (env: { WEBHOOKS_ALLOW_PRIVATE_TARGETS?: string }) => env.WEBHOOKS_ALLOW_PRIVATE_TARGETS === "true";
