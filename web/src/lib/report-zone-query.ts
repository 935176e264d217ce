import { api, unwrap } from "./api";

/**
 * The report time zone's query, on its own so the router's loaders can start it with the first
 * request of a load (lib/report-days.ts, which the screens use, brings date-fns along).
 */
export const reportTimeZoneQuery = {
  queryKey: ["settings", "report-time-zone"] as const,
  queryFn: () => unwrap(api.settings["report-time-zone"].$get()),
  // The setting changes rarely; the day rolls over, which `dayInZone` handles from the zone itself.
  staleTime: 10 * 60_000,
};
