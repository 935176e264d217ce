import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import { api, unwrap } from "@/lib/api";
import type { PurchaseBody } from "../../../../worker/src/schemas/domains";

export type Domain = InferResponseType<typeof api.domains.$get, 200>[number];
export type DomainSetup = InferResponseType<typeof api.domains.setup.$get, 200>;
export type CheckResult = InferResponseType<typeof api.domains.check.$post, 200>;
export type ProxyTest = InferResponseType<(typeof api.domains)["test-proxy"]["$post"], 200>;

const key = ["domains"] as const;

/** Poll fast while a step runs, slowly while a zone waits for Cloudflare, not at all otherwise. */
export function pollInterval(rows: Domain[] | undefined): number | false {
  if (!rows) return false;
  if (rows.some((d) => d.busy || d.status === "purchasing")) return 2000;
  if (rows.some((d) => d.status === "configuring_dns")) return 15_000;
  return false;
}

export const domainsQuery = queryOptions({ queryKey: key, queryFn: () => unwrap(api.domains.$get()) });
export const useDomains = () => useQuery({ ...domainsQuery, refetchInterval: (q) => pollInterval(q.state.data) });

export const domainSetupQuery = queryOptions({ queryKey: [...key, "setup"], queryFn: () => unwrap(api.domains.setup.$get()) });
export const useDomainSetup = () => useQuery(domainSetupQuery);

export const useCheckDomain = () => useMutation({ mutationFn: (domain: string) => unwrap(api.domains.check.$post({ json: { domain } })) });

export const useTestProxy = () => useMutation({ mutationFn: () => unwrap(api.domains["test-proxy"].$post()) });

/** Every change of a domain refreshes the list, and the campaign dialog's tracking-domain choices. */
function useDomainMutation<A, R>(call: (arg: A) => Promise<R>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSettled: async () => {
      await Promise.all([qc.invalidateQueries({ queryKey: key }), qc.invalidateQueries({ queryKey: ["campaigns"] })]);
    },
  });
}

/** Buys at the first-year price the admin confirmed: the server refuses (409) when it has changed since. */
export const usePurchaseDomain = () => useDomainMutation((body: PurchaseBody) => unwrap(api.domains.purchase.$post({ json: body })));

export const useConfigureDomain = () =>
  useDomainMutation(({ id, subdomain }: { id: number; subdomain: string }) =>
    unwrap(api.domains[":id"].configure.$post({ param: { id: String(id) }, json: { subdomain } })),
  );

export const useUpdateNameservers = () =>
  useDomainMutation((id: number) => unwrap(api.domains[":id"]["update-nameservers"].$post({ param: { id: String(id) } })));

export const useMigrateToWorkers = () =>
  useDomainMutation((id: number) => unwrap(api.domains[":id"]["migrate-to-workers"].$post({ param: { id: String(id) } })));

export const useDeleteDomain = () => useDomainMutation((id: number) => unwrap(api.domains[":id"].$delete({ param: { id: String(id) } })));
