import { MutationCache, QueryCache, QueryClient } from "@tanstack/react-query";
import { ApiError } from "@/lib/api";
import { userQuery } from "@/lib/auth";
import { seedBootData } from "./boot-data";

/**
 * A 403 means the signed-in user's rights changed under them (an admin took a feature away, or
 * made them a member): the session still works, but what this browser knows of the user is
 * stale. A 401 to a signed-in user means the session ended (signed out elsewhere, deleted,
 * expired): reloading the user then finds nobody, and the route guard takes them to the sign-in
 * screen, which brings them back here afterwards. Either way the sidebar and the route guards
 * follow at once, instead of after a reload. Several refusals at once share one reload. (Answers
 * that succeed carry the rights' key for the same purpose: app/follow-access.ts.)
 */
function refreshUserOnRefusal(client: QueryClient, error: unknown) {
  if (!(error instanceof ApiError) || (error.status !== 403 && error.status !== 401)) return;
  if (error.status === 401 && !client.getQueryData(userQuery.queryKey)) return;
  void client.invalidateQueries({ queryKey: userQuery.queryKey, exact: true }, { cancelRefetch: false });
}

/**
 * docs/screens.md §9 defaults: no automatic refetching, no refetch on focus, data never stale, no retries.
 * Screens that poll set their own `refetchInterval`.
 */
export const createQueryClient = () => {
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({ onError: (error) => refreshUserOnRefusal(client, error) }),
    mutationCache: new MutationCache({ onError: (error) => refreshUserOnRefusal(client, error) }),
    defaultOptions: {
      queries: { refetchInterval: false, refetchOnWindowFocus: false, staleTime: Infinity, retry: false },
      mutations: { retry: false },
    },
  });
  return client;
};

/**
 * The app's one client: the providers hand it to React, and the route loaders (app/router.tsx)
 * prefetch into it before a screen renders. It starts with the answers the document brought (the
 * user and the report time zone), before the router's first loaders ask for them.
 */
export const appQueryClient = createQueryClient();
seedBootData(appQueryClient);
