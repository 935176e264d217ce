import { ApiError } from "../lib/errors";
import { describeRoute } from "./config";
import { namecheapFor, type DomainDeps } from "./context";
import { NamecheapError, routeLabel } from "./namecheap";

export interface ProxyTestAnswer {
  success: true;
  mode: "direct" | "relay" | "socks5";
  route: string;
  egressIp: string | null;
  message: string;
}

/**
 * POST /api/domains/test-proxy: a real read-only Namecheap call (users.getBalances) on the
 * configured route, and the IP address the calls leave from, which Namecheap must have whitelisted.
 */
export async function testProxy(deps: DomainDeps): Promise<ProxyTestAnswer> {
  const nc = namecheapFor(deps);
  const clientIp = deps.env.NAMECHEAP_CLIENT_IP?.trim() ?? "";
  let balance: { currency: string; available: string };
  try {
    balance = await nc.balance();
  } catch (err) {
    if (!(err instanceof NamecheapError)) throw err;
    // An IP-not-whitelisted answer names the IP itself; otherwise ask the echo service.
    const ip = err.details.egressIp ? null : await nc.egressIp();
    throw new ApiError(502, `${err.message}${ip ? ` Calls ${routeLabel(nc.route)} leave from ${ip}.` : ""}`);
  }
  const egressIp = await nc.egressIp();
  const leaves = egressIp
    ? ` Calls leave from ${egressIp}${clientIp && clientIp !== egressIp ? ` (NAMECHEAP_CLIENT_IP says ${clientIp}: whitelist this IP: ${egressIp}, or the route will stop working when Namecheap checks it)` : ""}.`
    : " The egress IP could not be determined (the IP echo service did not answer).";
  const directNote = nc.route.mode === "direct" ? " Direct calls leave from Cloudflare's changing addresses: use the HTTPS relay in production." : "";
  return {
    success: true,
    mode: nc.route.mode,
    route: describeRoute(nc.route),
    egressIp,
    message: `Namecheap answered ${routeLabel(nc.route)} (available balance ${balance.available} ${balance.currency}).${leaves}${directNote}`,
  };
}
