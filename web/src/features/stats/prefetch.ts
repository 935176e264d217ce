import type { QueryClient } from "@tanstack/react-query";
import { dayInZone, reportTimeZoneQuery } from "@/lib/report-days";
import { parseSearch } from "@/lib/url-state";
import { reportQuery } from "./api";
import { reportParamsOf, statsSearchDefaults, statsSearchSchema } from "./url-state";

/** The route loader's part (app/router.tsx): the report the URL asks for, under the screen's own query key. */
export async function prefetch(client: QueryClient, url: URL) {
  const { timeZone } = await client.ensureQueryData(reportTimeZoneQuery);
  const search = parseSearch(statsSearchSchema, url.searchParams, statsSearchDefaults(dayInZone(Date.now(), timeZone)));
  await client.prefetchQuery(reportQuery(reportParamsOf(search)));
}
