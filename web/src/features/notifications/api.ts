import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import { api, unwrap } from "@/lib/api";

export type NotificationList = InferResponseType<typeof api.notifications.$get, 200>;
export type AppNotification = NotificationList["items"][number];

const key = ["notifications"] as const;

/** Polled every minute while the app is open, so an alert fired by the cron shows without a reload. */
export const useNotifications = () => useQuery({ queryKey: key, queryFn: () => unwrap(api.notifications.$get()), refetchInterval: 60_000 });

export function useMarkAllRead() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.notifications["read-all"].$post()),
    onSuccess: () => qc.invalidateQueries({ queryKey: key }),
  });
}
