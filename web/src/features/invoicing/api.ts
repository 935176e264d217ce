import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import { api, unwrap } from "@/lib/api";
import type { InvoiceInput } from "../../../../worker/src/schemas/invoices";

export type Invoice = InferResponseType<typeof api.invoices.$get, 200>[number];

const key = ["invoices"] as const;
export const invoicesQuery = queryOptions({ queryKey: key, queryFn: () => unwrap(api.invoices.$get()) });
export const useInvoices = () => useQuery(invoicesQuery);

/** Known media buyers (CAKE sub1 values) as suggestions for the form. */
export { assignmentOptionsQuery as mediaBuyerSuggestionsQuery } from "@/lib/entities";

export function useSaveInvoice() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...json }: InvoiceInput & { id?: number }) =>
      id === undefined ? unwrap(api.invoices.$post({ json })) : unwrap(api.invoices[":id"].$patch({ param: { id: String(id) }, json })),
    onSuccess: () => qc.invalidateQueries({ queryKey: key }),
  });
}

export function useDeleteInvoice() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => unwrap(api.invoices[":id"].$delete({ param: { id: String(id) } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: key }),
  });
}
