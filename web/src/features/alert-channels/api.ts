import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import { api, unwrap } from "@/lib/api";
import type { CreateChannelInput, UpdateChannelInput } from "../../../../worker/src/schemas/alert-channels";

export type ChannelList = InferResponseType<(typeof api)["alert-channels"]["$get"], 200>;
export type Channel = ChannelList["channels"][number];

const key = ["alert-channels"] as const;
export const useChannels = () => useQuery({ queryKey: key, queryFn: () => unwrap(api["alert-channels"].$get()) });

export function useCreateChannel() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (json: CreateChannelInput) => unwrap(api["alert-channels"].$post({ json })),
    onSuccess: () => qc.invalidateQueries({ queryKey: key }),
  });
}

export function useUpdateChannel() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, json }: { id: number; json: UpdateChannelInput }) => unwrap(api["alert-channels"][":id"].$put({ param: { id: String(id) }, json })),
    onSuccess: () => qc.invalidateQueries({ queryKey: key }),
  });
}

export function useDeleteChannel() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => unwrap(api["alert-channels"][":id"].$delete({ param: { id: String(id) } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: key }),
  });
}

export function useTestChannel() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => unwrap(api["alert-channels"][":id"].test.$post({ param: { id: String(id) } })),
    // A test changes the channel's last status, and may mark it broken or fixed; the bell may have news.
    onSuccess: () => qc.invalidateQueries({ queryKey: key }).then(() => qc.invalidateQueries({ queryKey: ["notifications"] })),
  });
}
