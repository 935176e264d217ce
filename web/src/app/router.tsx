import type { ComponentType } from "react";
import { createBrowserRouter, type RouteObject } from "react-router";
import { FullPageSpinner } from "@/components/ui/spinner";
import { userQuery } from "@/lib/auth";
import { reportTimeZoneQuery } from "@/lib/report-zone-query";
import { appQueryClient } from "./query-client";
import { RequireAccess, RequireAuth } from "./guards";
import { SCREENS, type Requirement } from "./screens";
import { SCREEN_ACCESS } from "../../../worker/src/access-rules";

/**
 * A route whose code is its own chunk, loaded by the router before the route renders (react-router's
 * `lazy`), not by React.lazy under a Suspense boundary. React holds back showing content that
 * replaces a Suspense fallback until 300 ms after the fallback appeared, so on a fresh load the
 * signed-in frame's spinner and then the screen's each cost up to that much after the code and the
 * data were there (docs/screens.md "The web app: state in the URL, days and speed").
 */
function lazyScreen(load: () => Promise<{ default: ComponentType }>, requires?: Requirement): Pick<RouteObject, "lazy"> {
  return {
    lazy: async () => {
      const { default: Screen } = await load();
      return {
        element: requires ? (
          <RequireAccess requires={requires}>
            <Screen />
          </RequireAccess>
        ) : (
          <Screen />
        ),
      };
    },
  };
}

/**
 * Prefetching can be switched off for one tab (`sessionStorage["trackyard.prefetch"] = "off"`):
 * the Stats loader benchmark (scripts/bench/stats-loader.mjs) measures the screen both ways.
 */
const prefetchOn = () => {
  try {
    return sessionStorage.getItem("trackyard.prefetch") !== "off";
  } catch {
    return true;
  }
};

export const router = createBrowserRouter([
  { path: "/auth", ...lazyScreen(() => import("@/features/auth/login-screen")), hydrateFallbackElement: null },
  {
    element: <RequireAuth />,
    // While a fresh load's first route code arrives (the signed-in frame and the screen).
    hydrateFallbackElement: <FullPageSpinner />,
    children: [
      {
        lazy: async () => {
          const { default: AppLayout } = await import("./layout/app-layout");
          return { element: <AppLayout screens={SCREENS} /> };
        },
        children: [
          ...SCREENS.map((screen) => {
            return {
              path: screen.path,
              // The screen's first data on its way beside its code and the frame's (the router runs
              // this loader while it resolves the matched routes' `lazy`): no chunk-then-fetch
              // waterfall. The loader waits for nothing (not even the prefetch module), so a
              // navigation, and a signed-out visitor's way to the sign-in screen, are never held up.
              loader: ({ request }: { request: Request }) => {
                // On a fresh load, what the screen waits for before its own query, all at once
                // rather than one after another: who is signed in and the report time zone (the
                // default range).
                void appQueryClient.prefetchQuery(userQuery);
                void appQueryClient.prefetchQuery(reportTimeZoneQuery);
                if (screen.prefetch && prefetchOn()) {
                  const url = new URL(request.url);
                  void screen
                    .prefetch()
                    .then(({ prefetch }) => prefetch(appQueryClient, url))
                    .catch(() => undefined);
                }
                return null;
              },
              // Only on arriving at the screen: a change of its own search parameters (a sort, a
              // filter) is the screen's query to make, not a new navigation.
              shouldRevalidate: ({ currentUrl, nextUrl }: { currentUrl: URL; nextUrl: URL }) => currentUrl.pathname !== nextUrl.pathname,
              ...lazyScreen(screen.load, screen.requires),
            };
          }),
          {
            // A campaign's traffic distribution: reached from its row on Campaigns, opened to the same people.
            path: "/campaigns/:id/paths",
            ...lazyScreen(() => import("@/features/paths/paths-screen"), SCREEN_ACCESS["/campaigns"]),
          },
          // A rule's editor and history (/rules/new, /rules/:id), opened to the same people as /rules.
          ...["/rules/new", "/rules/:id"].map((path) => ({
            path,
            ...lazyScreen(() => import("@/features/rules/rule-editor-screen"), SCREEN_ACCESS["/rules"]),
          })),
          {
            // Alerts' channels and the built-in alerts, admins' tabs of Rules (the tab links are on each
            // Rules screen), not sidebar screens of their own.
            path: "/rules/channels",
            ...lazyScreen(() => import("@/features/alert-channels/channels-screen"), "admin"),
          },
          {
            path: "/rules/alerts",
            ...lazyScreen(() => import("@/features/built-in-alerts/built-in-alerts-screen"), "admin"),
          },
          {
            // The API's reference, reached from Account's API keys card, opened to the same people as Account.
            path: "/account/api",
            ...lazyScreen(() => import("@/features/api-reference/api-reference-screen"), SCREEN_ACCESS["/account"]),
          },
          {
            path: "*",
            ...lazyScreen(() => import("@/features/shell/not-found-screen")),
          },
        ],
      },
    ],
  },
]);
