import type { QueryClient } from "@tanstack/react-query";
import { dayInZone, reportTimeZoneQuery } from "@/lib/report-days";
import { parseSearch } from "@/lib/url-state";
import { clickLogOptions } from "./api";
import { clicksSearchDefaults, clicksSearchSchema, clicksStateOf } from "./url-state";

/** The route loader's part (app/router.tsx): the Click Log page the URL asks for. */
export async function prefetch(client: QueryClient, url: URL) {
  const { timeZone } = await client.ensureQueryData(reportTimeZoneQuery);
  const s = clicksStateOf(parseSearch(clicksSearchSchema, url.searchParams, clicksSearchDefaults(dayInZone(Date.now(), timeZone))));
  await client.prefetchQuery(clickLogOptions(s.range, s.campaignId, s.visitors, s.page));
}
