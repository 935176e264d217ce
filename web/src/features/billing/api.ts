import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import { api, ApiError, unwrap } from "@/lib/api";

export type TransactionPage = InferResponseType<typeof api.transactions.$get, 200>;
export type Transaction = TransactionPage["transactions"][number];
export type UploadResult = InferResponseType<typeof api.transactions.upload.$post, 200>;

export interface TransactionFilters {
  status: string;
  vcnLast4: string;
  minAmount: string;
  maxAmount: string;
}

const key = ["transactions"] as const;

export const transactionsQuery = (filters: TransactionFilters, page: number) =>
  queryOptions({
    queryKey: [...key, "list", filters, page],
    queryFn: () =>
      unwrap(
        api.transactions.$get({
          // docs/screens.md §7: 'all' and empty filters are omitted.
          query: {
            ...(filters.status !== "all" && { status: filters.status }),
            ...(filters.vcnLast4 !== "all" && { vcnLast4: filters.vcnLast4 }),
            ...(filters.minAmount.trim() && { minAmount: filters.minAmount.trim() }),
            ...(filters.maxAmount.trim() && { maxAmount: filters.maxAmount.trim() }),
            page: String(page),
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });

export const useTransactions = (filters: TransactionFilters, page: number) => useQuery(transactionsQuery(filters, page));

export const vcnSummaryQuery = (startDate: string, endDate: string) =>
  queryOptions({
    queryKey: [...key, "vcn-summary", startDate, endDate],
    queryFn: () =>
      unwrap(
        api.transactions["vcn-summary"].$get({
          query: { ...(startDate && { startDate }), ...(endDate && { endDate }) },
        }),
      ),
    placeholderData: keepPreviousData,
  });

export const vcnLast4Query = queryOptions({
  queryKey: [...key, "vcn-last4"],
  queryFn: () => unwrap(api.transactions["vcn-last4"].$get()),
});

export function useUpload() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (file: File) => {
      try {
        return await unwrap(api.transactions.upload.$post({ form: { file } }));
      } catch (err) {
        if (err instanceof ApiError && err.status === 0) throw new Error(err.message || "Could not upload CSV file");
        throw err;
      }
    },
    // docs/screens.md §7: after an upload every transaction query refreshes.
    onSuccess: () => qc.invalidateQueries({ queryKey: key }),
  });
}
