import { lazy, Suspense } from "react";
import { createBrowserRouter } from "react-router";
import { FullPageSpinner, Spinner } from "@/components/ui/spinner";
import { userQuery } from "@/lib/auth";
import { reportTimeZoneQuery } from "@/lib/report-zone-query";
import { appQueryClient } from "./query-client";
import { RequireAccess, RequireAuth } from "./guards";
import { SCREENS } from "./screens";
import { SCREEN_ACCESS } from "../../../worker/src/access-rules";

// The signed-in frame loads lazily too, so the sign-in screen ships only what it needs.
const loadAppLayout = () => import("./layout/app-layout");
const AppLayout = lazy(loadAppLayout);
const LoginScreen = lazy(() => import("@/features/auth/login-screen"));
const NotFoundScreen = lazy(() => import("@/features/shell/not-found-screen"));
const PathsScreen = lazy(() => import("@/features/paths/paths-screen"));
const ChannelsScreen = lazy(() => import("@/features/alert-channels/channels-screen"));
const BuiltInAlertsScreen = lazy(() => import("@/features/built-in-alerts/built-in-alerts-screen"));
const RuleEditorScreen = lazy(() => import("@/features/rules/rule-editor-screen"));
const ApiReferenceScreen = lazy(() => import("@/features/api-reference/api-reference-screen"));

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

const screenFallback = (
  <div className="flex justify-center py-24">
    <Spinner />
  </div>
);

export const router = createBrowserRouter([
  {
    path: "/auth",
    element: (
      <Suspense fallback={null}>
        <LoginScreen />
      </Suspense>
    ),
  },
  {
    element: <RequireAuth />,
    children: [
      {
        element: (
          <Suspense fallback={<FullPageSpinner />}>
            <AppLayout screens={SCREENS} />
          </Suspense>
        ),
        children: [
          ...SCREENS.map((screen) => {
            const Component = lazy(screen.load);
            return {
              path: screen.path,
              // The screen's code and its first data on their way together: no chunk-then-fetch
              // waterfall. The loader waits for nothing (not even the prefetch module), so a
              // navigation, and a signed-out visitor's way to the sign-in screen, are never held up.
              loader: ({ request }: { request: Request }) => {
                void screen.load();
                // On a fresh load, what the screen waits for before its own query, all at once
                // rather than one after another: who is signed in, the frame around the screen
                // (drawn once the user is known) and the report time zone (the default range).
                void loadAppLayout();
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
              element: (
                <RequireAccess requires={screen.requires}>
                  <Suspense fallback={screenFallback}>
                    <Component />
                  </Suspense>
                </RequireAccess>
              ),
            };
          }),
          {
            // A campaign's traffic distribution: reached from its row on Campaigns, opened to the same people.
            path: "/campaigns/:id/paths",
            element: (
              <RequireAccess requires={SCREEN_ACCESS["/campaigns"]}>
                <Suspense fallback={screenFallback}>
                  <PathsScreen />
                </Suspense>
              </RequireAccess>
            ),
          },
          // A rule's editor and history (/rules/new, /rules/:id), opened to the same people as /rules.
          ...["/rules/new", "/rules/:id"].map((path) => ({
            path,
            element: (
              <RequireAccess requires={SCREEN_ACCESS["/rules"]}>
                <Suspense fallback={screenFallback}>
                  <RuleEditorScreen />
                </Suspense>
              </RequireAccess>
            ),
          })),
          {
            // Alerts' channels and the built-in alerts, admins' tabs of Rules (the tab links are on each
            // Rules screen), not sidebar screens of their own.
            path: "/rules/channels",
            element: (
              <RequireAccess requires="admin">
                <Suspense fallback={screenFallback}>
                  <ChannelsScreen />
                </Suspense>
              </RequireAccess>
            ),
          },
          {
            path: "/rules/alerts",
            element: (
              <RequireAccess requires="admin">
                <Suspense fallback={screenFallback}>
                  <BuiltInAlertsScreen />
                </Suspense>
              </RequireAccess>
            ),
          },
          {
            // The API's reference, reached from Account's API keys card, opened to the same people as Account.
            path: "/account/api",
            element: (
              <RequireAccess requires={SCREEN_ACCESS["/account"]}>
                <Suspense fallback={screenFallback}>
                  <ApiReferenceScreen />
                </Suspense>
              </RequireAccess>
            ),
          },
          {
            path: "*",
            element: (
              <Suspense fallback={screenFallback}>
                <NotFoundScreen />
              </Suspense>
            ),
          },
        ],
      },
    ],
  },
]);
