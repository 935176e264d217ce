/**
 * What the app asks first, in its document: the signed-in user and the report time zone, the two
 * answers every screen waits for before it asks for its own data (web/src/app/router.tsx). With
 * them in the page, a fresh load's first data call goes out as soon as the screen's code has run,
 * instead of one round trip later (docs/screens.md "The web app: state in the URL, days and speed").
 *
 * They are the API's own answers (the same routes, middleware and session check, called inside
 * the Worker with the document request's cookie), so the page holds nothing a call would not have
 * given. The document is sent at once up to its end; the answers follow in a JSON block before
 * `</body>` (its contract: boot-parts.ts): the browser fetches the scripts the head names
 * meanwhile, and runs them (module scripts wait for the whole document) with the answers there.
 * A signed-out visitor, a call that is refused, or one slower than BOOT_WAIT_MS leaves its part
 * out, and the app asks as before. Only a page load gets them (not a script or a prefetch that
 * fell back to the document), and the page is then kept by no cache.
 */
import { parse as parseCookies } from "hono/utils/cookie";
import { SESSION_COOKIE } from "../auth/session";
import { BOOT_CALLS, BOOT_ELEMENT_ID, type BootPart } from "../boot-parts";

/** How long the document waits for each call before it goes without that part. */
const BOOT_WAIT_MS = 500;

/** What the API calls carry of the document request: who it is, and where from (nothing else). */
const FORWARDED = ["cookie", "user-agent", "accept-language", "cf-connecting-ip", "x-forwarded-for"];

function callHeaders(req: Request): Headers {
  const headers = new Headers({ accept: "application/json" });
  for (const name of FORWARDED) {
    const value = req.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  return headers;
}

/** A page load (not a script, image or prefetch that fell back to the app's document). */
function isNavigation(req: Request): boolean {
  const dest = req.headers.get("sec-fetch-dest");
  return dest !== null ? dest === "document" : (req.headers.get("accept") ?? "").includes("text/html");
}

/** Whether the request carries a session cookie, read as the session middleware reads it (Hono's getCookie). */
const hasSession = (req: Request) => parseCookies(req.headers.get("cookie") ?? "", SESSION_COOKIE)[SESSION_COOKIE] !== undefined;

/** One call's answer as a part, or nothing when it is refused, fails or takes longer than BOOT_WAIT_MS. */
async function part(req: Request, path: string, call: (req: Request) => Promise<Response>): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), BOOT_WAIT_MS)));
  const answer = (async () => {
    const res = await call(new Request(new URL(path, req.url), { headers: callHeaders(req) }));
    if (res.status !== 200 || !res.headers.get("content-type")?.includes("application/json")) return undefined;
    return (await res.json()) as unknown;
  })().catch(() => undefined);
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function bootData(req: Request, call: (req: Request) => Promise<Response>): Promise<Partial<Record<BootPart, unknown>>> {
  const parts = await Promise.all(Object.entries(BOOT_CALLS).map(async ([name, path]) => [name, await part(req, path, call)] as const));
  return Object.fromEntries(parts.filter(([, value]) => value !== undefined));
}

/** JSON safe inside a `<script>` element: no `<` can close it. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

/**
 * `res` (the app's document for `req`) with the boot data before `</body>`, when the request
 * carries a session cookie. `call` answers an API request as the Worker does.
 */
export async function withBootData(req: Request, res: Response, call: (req: Request) => Promise<Response>): Promise<Response> {
  if (res.status !== 200 || !res.headers.get("content-type")?.startsWith("text/html") || !hasSession(req)) return res;
  if (req.method === "HEAD") return new Response(null, { status: res.status, statusText: res.statusText, headers: privateHeaders(res) });
  if (req.method !== "GET" || !isNavigation(req)) return res;
  const html = await res.text();
  // The app's own document only (another page among the assets is not the app's): sent as it came.
  const end = html.includes('<div id="root">') ? html.lastIndexOf("</body>") : -1;
  if (end < 0) return new Response(html, res);

  const data = bootData(req, call);
  const encoder = new TextEncoder();
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  void (async () => {
    try {
      await writer.write(encoder.encode(html.slice(0, end)));
      const parts = await data;
      const block = Object.keys(parts).length ? `<script type="application/json" id="${BOOT_ELEMENT_ID}">${scriptJson(parts)}</script>` : "";
      await writer.write(encoder.encode(block + html.slice(end)));
      await writer.close();
    } catch (err) {
      await writer.abort(err).catch(() => undefined);
    }
  })();
  return new Response(readable, { status: res.status, statusText: res.statusText, headers: privateHeaders(res) });
}

/**
 * A signed-in visitor's document holds their own data: kept by no cache, not even the browser's
 * (a stored page reopened later, after a sign-out or under another account, would seed the app
 * with the wrong user), and never revalidated by an ETag. A HEAD gets the same headers.
 */
function privateHeaders(res: Response): Headers {
  const headers = new Headers(res.headers);
  for (const name of ["content-length", "etag", "last-modified"]) headers.delete(name);
  headers.set("Cache-Control", "no-store");
  return headers;
}
