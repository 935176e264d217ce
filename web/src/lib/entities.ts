import { queryOptions } from "@tanstack/react-query";
import { api, unwrap } from "./api";

/**
 * The entity lists several screens read (offers, landers, sparks, campaigns, users), defined once:
 * one query key and one answer shape per list, so a change made on one screen invalidates what
 * every other screen shows through the same key. A screen that needs a narrower view of a list
 * takes it with `select`, never with a second query under the same key.
 */
export const entityKeys = {
  offers: ["offers"],
  landers: ["landers"],
  sparks: ["sparks"],
  campaigns: ["campaigns"],
  users: ["users"],
} as const;

/** Admins get whole offers; members ids and names only (worker/src/routes/offers.ts). */
export const offersQuery = queryOptions({ queryKey: entityKeys.offers, queryFn: () => unwrap(api.offers.$get()) });
export const landersQuery = queryOptions({ queryKey: entityKeys.landers, queryFn: () => unwrap(api.landers.$get()) });
export const sparksQuery = queryOptions({ queryKey: entityKeys.sparks, queryFn: () => unwrap(api.sparks.$get()) });
export const campaignsQuery = queryOptions({ queryKey: entityKeys.campaigns, queryFn: () => unwrap(api.campaigns.$get()) });
export const usersQuery = queryOptions({ queryKey: entityKeys.users, queryFn: () => unwrap(api.users.$get()) });

/**
 * Admin-only choices read by several dialogs: card nicknames, every known media buyer (CAKE sub1:
 * from CAKE, assigned, or set on a campaign) and the sparks (worker/src/routes/users.ts).
 */
export const assignmentOptionsQuery = queryOptions({
  queryKey: [...entityKeys.users, "assignment-options"],
  queryFn: () => unwrap(api.users["assignment-options"].$get()),
});
