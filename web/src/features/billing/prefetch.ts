import type { QueryClient } from "@tanstack/react-query";
import { parseSearch } from "@/lib/url-state";
import { transactionListQuerySchema } from "../../../../worker/src/schemas/transactions";
import { transactionsQuery, vcnSummaryQuery } from "./api";
import { BILLING_DEFAULTS, billingStateOf } from "./url-state";

/** The route loader's part (app/router.tsx): the page of transactions the URL asks for, and the VCN summary. */
export async function prefetch(client: QueryClient, url: URL) {
  const { filters, page } = billingStateOf(parseSearch(transactionListQuerySchema, url.searchParams, BILLING_DEFAULTS));
  await Promise.all([client.prefetchQuery(transactionsQuery(filters, page)), client.prefetchQuery(vcnSummaryQuery("", ""))]);
}
