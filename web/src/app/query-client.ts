import { QueryClient } from "@tanstack/react-query";

/**
 * Spec §9 defaults: no automatic refetching, no refetch on focus, data never stale, no retries.
 * Screens that poll set their own `refetchInterval`.
 */
export const createQueryClient = () =>
  new QueryClient({
    defaultOptions: {
      queries: { refetchInterval: false, refetchOnWindowFocus: false, staleTime: Infinity, retry: false },
      mutations: { retry: false },
    },
  });
