/**
 * What the app asks first, in its document: the signed-in user and the report time zone, which
 * every screen waits for (web/src/app/router.tsx), and the screen's own first calls (Stats' report
 * and columns, the Click Log's page, Transactions' page and VCN summary: lib/screen-calls.ts).
 * With them in the page, a fresh load draws the screen's rows as soon as its code has run, with no
 * call to wait for (docs/screens.md "First load: the screen's data in its document").
 *
 * They are the API's own answers (the same routes, middleware and session check, called inside
 * the Worker with the document request's cookie), so the page holds nothing a call would not have
 * given. The document is sent at once up to its end; the answers follow in a JSON block before
 * `</body>` (its contract: boot-parts.ts): the browser fetches the scripts the head names
 * meanwhile, and runs them (module scripts wait for the whole document) with the answers there.
 * A signed-out visitor, a call that is refused, or one not answered within BOOT_WAIT_MS leaves
 * its part out, and the app asks as before. Only a page load gets them (not a script or a
 * prefetch that fell back to the document), and the page is then kept by no cache.
 */
import { parse as parseCookies } from "hono/utils/cookie";
import { SESSION_COOKIE } from "../auth/session";
import { isRecord } from "../integrations/http";
import { BOOT_CALLS, BOOT_ELEMENT_ID, SCREEN_CALLS_PART, callKey, type BootPart, type PrimedCall } from "../boot-parts";
import { screenCalls } from "./screen-calls";

/** How long the document waits for its calls, all of them together, before it goes without those not answered. */
const BOOT_WAIT_MS = 500;
/** The screen's own calls start only with at least this much of that wait left. */
const SCREEN_CALLS_LEAST_MS = 200;

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

/** One call's answer as a part, or nothing when it is refused, fails or comes after `late`. */
async function part(req: Request, path: string, call: (req: Request) => Promise<Response>, late: Promise<undefined>): Promise<unknown> {
  const answer = (async () => {
    const res = await call(new Request(new URL(path, req.url), { headers: callHeaders(req) }));
    if (res.status !== 200 || !res.headers.get("content-type")?.includes("application/json")) return undefined;
    return (await res.json()) as unknown;
  })().catch(() => undefined);
  return Promise.race([answer, late]);
}

const isZone = (v: unknown): v is { today: string } => isRecord(v) && typeof v.today === "string";

/**
 * The boot calls, and once the report time zone has given its today, the screen's own first calls
 * (lib/screen-calls.ts): all within BOOT_WAIT_MS, counted from when the document's head went out
 * (the asset fetches and the route list before it are not counted).
 */
async function bootData(req: Request, call: (req: Request) => Promise<Response>): Promise<Record<string, unknown>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), BOOT_WAIT_MS)));
  try {
    const answers = Object.fromEntries(Object.entries(BOOT_CALLS).map(([name, path]) => [name, part(req, path, call, late)])) as Record<
      BootPart,
      Promise<unknown>
    >;
    const started = Date.now();
    const screen = answers.reportTimeZone
      .then((zone) =>
        // Not started when too little of the wait is left: the browser would ask for them anyway.
        isZone(zone) && Date.now() - started < BOOT_WAIT_MS - SCREEN_CALLS_LEAST_MS
          ? Promise.all(
              screenCalls(new URL(req.url), zone.today).map(async (c): Promise<PrimedCall> => ({
                ...c,
                answer: await part(req, callKey(c.path, c.query), call, late),
              })),
            )
          : [],
      )
      // A link the screen's calls cannot be worked out from goes without them, like a refused call.
      .catch((): PrimedCall[] => []);
    const parts: Record<string, unknown> = {};
    for (const [name, answer] of Object.entries(answers)) {
      const value = await answer;
      if (value !== undefined) parts[name] = value;
    }
    const calls = (await screen).filter((c) => c.answer !== undefined);
    if (calls.length) parts[SCREEN_CALLS_PART] = calls;
    return parts;
  } finally {
    clearTimeout(timer);
  }
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

  const encoder = new TextEncoder();
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  void (async () => {
    try {
      await writer.write(encoder.encode(html.slice(0, end)));
      // The calls start once the runtime has had a turn to send that part: they take the isolate
      // for a while (the screen's data above all), and the browser fetches the scripts the head
      // names meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 0));
      const parts = await bootData(req, call);
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
