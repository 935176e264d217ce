import type { z } from "zod";
import type { transactionListQuerySchema } from "../../../../worker/src/schemas/transactions";
import type { TransactionFilters } from "./api";

/** The filters and page live in the URL (read by the API's own schema): refresh and Back keep them. */
export const BILLING_DEFAULTS = {};

/** The list's filters and page as the screen (and its route loader) read them from the URL. */
export function billingStateOf(search: z.output<typeof transactionListQuerySchema>): { filters: TransactionFilters; page: number } {
  return {
    filters: {
      status: search.status ?? "all",
      vcnLast4: search.vcnLast4 ?? "all",
      minAmount: search.minAmount ?? "",
      maxAmount: search.maxAmount ?? "",
    },
    page: search.page,
  };
}
