import type { TemplateToken } from "../schemas/offers";
import { recordedValue } from "./values";

function queryKey(part: string) {
  const raw = part.split("=", 1)[0]!.replace(/\+/g, " ");
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * Adds `query` (already encoded, `a=1&b=2`) to an absolute URL. The URL's own query parameters are
 * kept byte for byte (only those named in `replace` are removed first, so ours win) and its
 * fragment stays last. Returns null when `href` is not an http(s) URL: callers then have nowhere
 * safe to send the visitor.
 */
export function appendQuery(href: string, query: string, replace: readonly string[] = []): string | null {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  // URL.href punycodes the host and percent-encodes what a Location header cannot carry, and
  // leaves the existing query as typed (searchParams would re-serialise it).
  const normalised = url.href;
  const hashAt = normalised.indexOf("#");
  const beforeHash = hashAt < 0 ? normalised : normalised.slice(0, hashAt);
  const hash = hashAt < 0 ? "" : normalised.slice(hashAt);
  const queryAt = beforeHash.indexOf("?");
  const path = queryAt < 0 ? beforeHash : beforeHash.slice(0, queryAt);
  const own = queryAt < 0 ? [] : beforeHash.slice(queryAt + 1).split("&");
  const kept = own.filter((part) => part !== "" && !replace.includes(queryKey(part)));
  if (query) kept.push(query);
  return `${path}${kept.length ? `?${kept.join("&")}` : ""}${hash}`;
}

export type TemplateValues = Record<TemplateToken, string | null | undefined>;

/**
 * Fills an offer's template: each `{token}` becomes its value URL-encoded; a missing value, or one
 * that is still an unfilled `__MACRO__` placeholder (recorded before that rule, tracking/values.ts),
 * becomes empty. The template's own text is the admin's and is kept as is (validated on save).
 */
export function fillTemplate(template: string, values: TemplateValues): string {
  return template.replace(/\{([A-Za-z]+)\}/g, (whole, name: string) =>
    Object.hasOwn(values, name) ? encodeURIComponent(recordedValue(values[name as TemplateToken]) ?? "") : whole,
  );
}
