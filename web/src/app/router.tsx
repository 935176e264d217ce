import { lazy, Suspense } from "react";
import { createBrowserRouter } from "react-router";
import { FullPageSpinner, Spinner } from "@/components/ui/spinner";
import { RequireAccess, RequireAuth } from "./guards";
import { SCREENS } from "./screens";

// The signed-in frame loads lazily too, so the sign-in screen ships only what it needs.
const AppLayout = lazy(() => import("./layout/app-layout"));
const LoginScreen = lazy(() => import("@/features/auth/login-screen"));
const NotFoundScreen = lazy(() => import("@/features/shell/not-found-screen"));

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
