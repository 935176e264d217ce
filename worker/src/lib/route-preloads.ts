/**
 * The app's HTML document with modulepreload links for the screen it opens, and stylesheet links
 * for their styles: the build lists each screen's chunks and styles in route-preloads.json
 * (scripts/lib/route-preloads-plugin.mjs), and a browser given them fetches them beside the entry
 * script instead of only once that has run. Without the list (a test's assets, an older build)
 * the document goes out as it is. Measured in
 * docs/screens.md "The web app: state in the URL, days and speed".
 */
import { isRecord } from "../integrations/http";

const LIST = "/route-preloads.json";

type RoutePreloads = Record<string, string[]>;

/** One read of the list per assets binding (it changes only with a deploy, which starts a new isolate). */
const lists = new WeakMap<Fetcher, Promise<RoutePreloads>>();

function listOf(assets: Fetcher, origin: string): Promise<RoutePreloads> {
  let list = lists.get(assets);
  if (!list) {
    list = assets
      .fetch(new Request(new URL(LIST, origin)))
      .then(async (res) => {
        if (!res.ok || !res.headers.get("content-type")?.includes("json")) return {};
        const body: unknown = await res.json();
        return isRoutePreloads(body) ? body : {};
      })
      .catch(() => ({}));
    lists.set(assets, list);
  }
  return list;
}

function isRoutePreloads(body: unknown): body is RoutePreloads {
  return (
    isRecord(body) &&
    Object.values(body).every((files) => Array.isArray(files) && files.every((f) => typeof f === "string" && /^\/assets\/[\w.~-]+\.(js|css)$/.test(f)))
  );
}

/** `res` (the SPA's answer for `req`) with the screen's chunks and styles linked in its head. */
export async function withRoutePreloads(assets: Fetcher, req: Request, res: Response): Promise<Response> {
  if (req.method !== "GET" || res.status !== 200 || !res.headers.get("content-type")?.startsWith("text/html")) return res;
  const url = new URL(req.url);
  const files = (await listOf(assets, url.origin))[url.pathname];
  if (!files?.length) return res;
  const html = await res.text();
  // A stylesheet link is also what Vite looks for before loading a chunk's styles itself.
  const links = files
    .map((f) => (f.endsWith(".css") ? `<link rel="stylesheet" crossorigin href="${f}">` : `<link rel="modulepreload" crossorigin href="${f}">`))
    .join("");
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  // The document now differs from the asset the ETag names.
  headers.delete("etag");
  return new Response(html.replace("</head>", `${links}</head>`), { status: res.status, statusText: res.statusText, headers });
}
