import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import { api, unwrap } from "@/lib/api";
import { isAdmin, useUser } from "@/lib/auth";

type CodesBody = InferResponseType<typeof api.codes.$get, 200>;
export type CodesData = CodesBody & { etag: string | null };
export type Code = CodesBody["items"][number];

const key = ["codes"] as const;
/** docs/screens.md §9: the inbox polls every 2 seconds. */
export const CODES_POLL_MS = 2000;

/**
 * The inbox, polled with If-None-Match: while nothing changed the server answers 304 without
 * reading the list, and the screen keeps what it has (no re-render either).
 */
export function useCodes() {
  const qc = useQueryClient();
  return useQuery({
    queryKey: key,
    refetchInterval: CODES_POLL_MS,
    queryFn: async (): Promise<CodesData> => {
      const previous = qc.getQueryData<CodesData>(key);
      const headers: Record<string, string> = previous?.etag ? { "If-None-Match": previous.etag } : {};
      const request = api.codes.$get(undefined, { headers });
      const res = await request;
      if (res.status === 304 && previous) return previous;
      const body = await unwrap(Promise.resolve(res));
      return { ...body, etag: res.headers.get("etag") };
    },
  });
}

/** The inbox settings that need fixing (admins only: the call is theirs, and so is the fix). */
export function useInboxSetup() {
  const { data: user } = useUser();
  return useQuery({ queryKey: [...key, "setup"], queryFn: () => unwrap(api.codes.setup.$get()), enabled: isAdmin(user) });
}
