/**
 * Host names and the addresses of the outside services the Worker calls with keys: one rule for
 * "this machine" (the local fakes, `npm start`) and one for an address a key may travel to.
 */

/** This machine: `localhost`, `127.x.x.x` or `[::1]` (a URL's `hostname`, which keeps IPv6 brackets). */
export const isLoopback = (hostname: string) => hostname === "localhost" || hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(hostname);

/**
 * An outside service's address from setting `name`: https, or plain http only on this machine (the
 * local fakes), since every call carries the service's key and elsewhere it would travel in clear
 * text. Anything else adds a problem naming the setting (the Domains screen's and the data
 * sources' "what to fix" read it) and gives null.
 */
export function secureUrl(raw: string, name: string, problems: string[]): URL | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    problems.push(`${name} is not a URL`);
    return null;
  }
  if (url.protocol === "https:" || (url.protocol === "http:" && isLoopback(url.hostname))) return url;
  problems.push(`${name} must be an https:// address (plain http only for a local stand-in on 127.0.0.1)`);
  return null;
}
