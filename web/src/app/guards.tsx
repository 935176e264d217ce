import type { ReactNode } from "react";
import { Navigate, Outlet, useLocation } from "react-router";
import { FullPageSpinner } from "@/components/ui/spinner";
import { homePath, signInPathFor, useUser } from "@/lib/auth";
import { allows, type Requirement } from "./screens";

/** Where a user who must first set up two-factor sign-in is kept (the server allows them nothing else). */
export const TWO_FACTOR_SETUP_PATH = "/account";

/**
 * Login-protected: a spinner while the user loads, /auth when signed out. The sign-in screen's URL
 * names the page asked for, whole (path, search and hash), so a shared link opens after sign-in
 * with its filters, and a reload of the sign-in screen keeps it.
 */
export function RequireAuth() {
  const { data: user, isPending } = useUser();
  const location = useLocation();
  if (isPending) return <FullPageSpinner />;
  if (!user) return <Navigate to={signInPathFor(location.pathname + location.search + location.hash)} replace />;
  if (user.mustSetUpTwoFactor && location.pathname !== TWO_FACTOR_SETUP_PATH) return <Navigate to={TWO_FACTOR_SETUP_PATH} replace />;
  return <Outlet />;
}

/** Admin- or feature-protected: anyone not allowed goes to their home screen. */
export function RequireAccess({ requires, children }: { requires: Requirement; children: ReactNode }) {
  const { data: user } = useUser();
  if (!allows(user, requires)) return <Navigate to={homePath(user)} replace />;
  return <>{children}</>;
}
