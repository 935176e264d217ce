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
 * out, and the app asks as before.
 */
import { SESSION_COOKIE } from "../auth/session";
import { BOOT_CALLS, BOOT_ELEMENT_ID, type BootPart } from "../boot-parts";

const BOOT_WAIT_MS = 1000;

/** The document request's headers minus what describes a navigation, for the API calls. */
function callHeaders(req: Request): Headers {
  const headers = new Headers(req.headers);
  for (const name of ["accept", "if-none-match", "if-modified-since", "range", "upgrade-insecure-requests"]) headers.delete(name);
  for (const name of [...headers.keys()]) if (name.startsWith("sec-fetch-")) headers.delete(name);
  headers.set("accept", "application/json");
  return headers;
}

async function bootData(req: Request, call: (req: Request) => Promise<Response>): Promise<Partial<Record<BootPart, unknown>>> {
  const headers = callHeaders(req);
  const parts = await Promise.all(
    Object.entries(BOOT_CALLS).map(async ([part, path]) => {
      try {
        const res = await call(new Request(new URL(path, req.url), { headers }));
        if (res.status !== 200 || !res.headers.get("content-type")?.includes("application/json")) return [];
        return [[part, (await res.json()) as unknown] as const];
      } catch {
        return [];
      }
    }),
  );
  return Object.fromEntries(parts.flat());
}

/** JSON safe inside a `<script>` element: no `<` can close it. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

/**
 * `res` (the app's document for `req`) with the boot data before `</body>`, when the request
 * carries a session cookie. `call` answers an API request as the Worker does.
 */
export async function withBootData(req: Request, res: Response, call: (req: Request) => Promise<Response>): Promise<Response> {
  if (req.method !== "GET" || res.status !== 200 || !res.headers.get("content-type")?.startsWith("text/html")) return res;
  if (!(req.headers.get("cookie") ?? "").split(/;\s*/).some((c) => c.startsWith(`${SESSION_COOKIE}=`))) return res;
  const html = await res.text();
  // The app's own document only (another page among the assets is not the app's): sent as it came.
  const end = html.includes('<div id="root">') ? html.lastIndexOf("</body>") : -1;
  if (end < 0) return new Response(html, res);
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  headers.delete("etag");
  // The page now holds the user's own data: this browser's only, and asked again every time.
  headers.set("Cache-Control", "private, no-cache");

  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<Partial<Record<BootPart, unknown>>>((resolve) => (timer = setTimeout(() => resolve({}), BOOT_WAIT_MS)));
  const data = bootData(req, call).finally(() => clearTimeout(timer));
  const encoder = new TextEncoder();
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  void (async () => {
    try {
      await writer.write(encoder.encode(html.slice(0, end)));
      const parts = await Promise.race([data, timeout]);
      const block = Object.keys(parts).length ? `<script type="application/json" id="${BOOT_ELEMENT_ID}">${scriptJson(parts)}</script>` : "";
      await writer.write(encoder.encode(block + html.slice(end)));
      await writer.close();
    } catch (err) {
      await writer.abort(err).catch(() => undefined);
    }
  })();
  return new Response(readable, { status: res.status, statusText: res.statusText, headers });
}
