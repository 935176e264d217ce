import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { onAccessKey } from "@/lib/api";
import { userQuery } from "@/lib/auth";

/** A screen that asked nothing for this long gets the user reloaded instead (one session read). */
export const QUIET_MS = 10_000;
const CHECK_MS = 2_000;

/**
 * Keeps the signed-in user (and so the sidebar and the route guards) in step with what an admin
 * changes, both ways, without a reload (docs/accounts-security.md "Accounts, roles and permissions"):
 *
 * - every API answer carries the session's access key (worker/src/auth/access-key.ts), computed
 *   from what the server reads for every request anyway, so it costs no D1 read; an answer whose
 *   key differs from the cached user's reloads `GET /api/user`. The screens that poll (Codes
 *   every 2 s, the Click Log every 10 s, Stats every 30 s) follow at their next poll;
 * - a screen that polls nothing (Sparks, Campaigns, Account...) would never hear of a change:
 *   after QUIET_MS without an answer, while the tab is visible, the user is reloaded, whose answer
 *   carries the key like any other. A hidden tab asks nothing.
 */
export function useFollowAccess() {
  const client = useQueryClient();
  useEffect(() => {
    let lastAnswer = Date.now();
    const reloadUser = () => void client.invalidateQueries({ queryKey: userQuery.queryKey, exact: true }, { cancelRefetch: false });
    const stop = onAccessKey((key) => {
      lastAnswer = Date.now();
      const user = client.getQueryData(userQuery.queryKey);
      if (user && user.accessKey !== key) reloadUser();
    });
    const timer = setInterval(() => {
      if (document.visibilityState !== "visible" || Date.now() - lastAnswer < QUIET_MS) return;
      lastAnswer = Date.now();
      reloadUser();
    }, CHECK_MS);
    return () => {
      stop();
      clearInterval(timer);
    };
  }, [client]);
}
