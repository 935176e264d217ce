import type { QueryClient } from "@tanstack/react-query";
import { primeAnswers } from "@/lib/api";
import { userQuery, type CurrentUser } from "@/lib/auth";
import { reportTimeZoneQuery } from "@/lib/report-zone-query";
import { BOOT_ELEMENT_ID, SCREEN_CALLS_PART, type BootPart, type PrimedCall } from "../../../worker/src/boot-parts";
import { isRecord } from "../../../worker/src/integrations/http";

type ReportTimeZone = Awaited<ReturnType<typeof reportTimeZoneQuery.queryFn>>;

// Checked by hand, not with the API's zod schemas: zod would join the entry script, which the
// sign-in screen's size budget counts (docs/screens.md "The web app: state in the URL, days and speed").
const isUser = (v: unknown): v is CurrentUser =>
  isRecord(v) &&
  typeof v.id === "string" &&
  typeof v.username === "string" &&
  (v.role === "user" || v.role === "admin") &&
  Array.isArray(v.permissions) &&
  v.permissions.every((p) => typeof p === "string") &&
  typeof v.twoFactorEnabled === "boolean" &&
  typeof v.mustSetUpTwoFactor === "boolean" &&
  typeof v.accessKey === "string";

const isStrings = (v: unknown): v is Record<string, string> => isRecord(v) && Object.values(v).every((x) => typeof x === "string");
const isPrimedCall = (v: unknown): v is PrimedCall =>
  isRecord(v) && typeof v.path === "string" && v.path.startsWith("/api/") && isStrings(v.query) && "answer" in v;

const isReportTimeZone = (v: unknown): v is ReportTimeZone => isRecord(v) && typeof v.timeZone === "string" && typeof v.today === "string";

function parseParts(text: string): Partial<Record<BootPart | typeof SCREEN_CALLS_PART, unknown>> {
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/**
 * Puts the answers the Worker sent in the document (worker/src/lib/boot-data.ts) into the query
 * cache, as if the app had asked for them, and takes them out of the page; the screen's own calls'
 * answers wait for the screen to make those calls (lib/api.ts `primeAnswers`). A part missing or
 * not of its call's shape is left out: the app asks for it as before.
 */
export function seedBootData(client: QueryClient, doc: Document = document) {
  const element = doc.getElementById(BOOT_ELEMENT_ID);
  if (!element) return;
  element.remove();
  const parts = parseParts(element.textContent ?? "");
  const user = parts.user;
  if (isUser(user)) client.setQueryData(userQuery.queryKey, user);
  const zone = parts.reportTimeZone;
  if (isReportTimeZone(zone)) client.setQueryData(reportTimeZoneQuery.queryKey, zone);
  // The screen's first calls: answered from the page when the screen makes them (lib/api.ts).
  const calls = parts[SCREEN_CALLS_PART];
  if (Array.isArray(calls)) primeAnswers(calls.filter(isPrimedCall));
}
