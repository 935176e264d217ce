/**
 * The boot data's contract, with no runtime dependencies (the web app's entry imports it): the
 * Worker puts the answers of these calls in the app's document (lib/boot-data.ts), and the web
 * app seeds its query cache with them (web/src/app/boot-data.ts). Each part is its call's answer
 * exactly.
 */
export const BOOT_ELEMENT_ID = "trackyard-boot";

/** Each part and the API call whose answer it is. */
export const BOOT_CALLS = { user: "/api/user", reportTimeZone: "/api/settings/report-time-zone" } as const;
export type BootPart = keyof typeof BOOT_CALLS;

/**
 * The part holding the answers of the screen's own first calls (lib/screen-calls.ts): each call's
 * path, query and answer. The app answers a request of its own from it only when the request's
 * `callKey` is the same, once, and only in the page's first seconds (web/src/lib/api.ts).
 */
export const SCREEN_CALLS_PART = "calls";
export interface PrimedCall {
  path: string;
  query: Record<string, string>;
  answer: unknown;
}

/** A GET of the API as one string, its query's keys sorted: `/api/clicks?endDate=...&page=1&startDate=...`. */
export function callKey(path: string, query: Record<string, string> | URLSearchParams): string {
  const params = new URLSearchParams(query instanceof URLSearchParams ? query : Object.entries(query));
  params.sort();
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}
