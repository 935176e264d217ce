import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import { api, unwrap } from "@/lib/api";

export type RedeployReport = InferResponseType<(typeof api)["redeploy-worker"]["$post"], 200>;

/** Settings → Redeploy Worker: attaches every active tracking domain to this Worker again. */
export function useRedeployWorker() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api["redeploy-worker"].$post()),
    onSettled: () => qc.invalidateQueries({ queryKey: ["domains"] }),
  });
}
