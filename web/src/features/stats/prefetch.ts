import type { QueryClient } from "@tanstack/react-query";
import { dayInZone, reportTimeZoneQuery } from "@/lib/report-days";
import { parseSearch } from "@/lib/url-state";
import { preferencesQuery, reportQuery } from "./api";
import { reportParamsOf, statsSearchDefaults, statsSearchSchema } from "./url-state";

/**
 * The route loader's part (app/router.tsx): the report the URL asks for, under the screen's own
 * query key, and the user's columns, so the table is drawn once with the right ones.
 */
export async function prefetch(client: QueryClient, url: URL) {
  const columns = client.prefetchQuery(preferencesQuery);
  const { timeZone } = await client.ensureQueryData(reportTimeZoneQuery);
  const search = parseSearch(statsSearchSchema, url.searchParams, statsSearchDefaults(dayInZone(Date.now(), timeZone)));
  await Promise.all([client.prefetchQuery(reportQuery(reportParamsOf(search))), columns]);
}
