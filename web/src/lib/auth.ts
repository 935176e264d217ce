import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import type { FEATURE_NAMES } from "../../../worker/src/schemas/users";
import { api, ApiError, unwrap } from "./api";

export type CurrentUser = InferResponseType<typeof api.user.$get, 200>;
export type Feature = (typeof FEATURE_NAMES)[number];

/** The signed-in user, or null when signed out (a 401 is an answer here, not an error). */
export const userQuery = queryOptions({
  queryKey: ["user"],
  queryFn: async (): Promise<CurrentUser | null> => {
    try {
      return await unwrap(api.user.$get());
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return null;
      throw err;
    }
  },
});

export const useUser = () => useQuery(userQuery);

/** Admins hold every feature. */
export const can = (user: CurrentUser | null | undefined, feature: Feature) => !!user && (user.role === "admin" || user.permissions.includes(feature));

export const isAdmin = (user: CurrentUser | null | undefined) => user?.role === "admin";

/** Where a user lands: the stats dashboard, or the codes inbox without the dashboard feature. */
export const homePath = (user: CurrentUser | null | undefined) => (can(user, "dashboard") ? "/" : "/codes");

export const SIGN_IN_PATH = "/auth";
/** The sign-in screen's parameter naming the app URL a signed-out visit asked for. */
export const RETURN_PARAM = "next";

/** The sign-in screen, remembering the URL (path, search and hash) to come back to. */
export const signInPathFor = (url: string) => (url === "/" ? SIGN_IN_PATH : `${SIGN_IN_PATH}?${new URLSearchParams({ [RETURN_PARAM]: url })}`);

/**
 * The URL to go back to after sign-in, or null when `value` is not one of our own pages. Anyone
 * can send a link to /auth?next=..., so only a path of this origin passes (no open redirect):
 * it must start with one "/" (not "//" or "/\", which browsers read as another host), hold no
 * control characters (the URL parser drops tabs and newlines, turning "/\t/x" into "//x"), and
 * resolve to this origin. The sign-in screen itself is no destination.
 */
export function safeReturnPath(value: string | null | undefined, origin = window.location.origin): string | null {
  if (!value || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return null;
  if (/[\u0000-\u001f\u007f]/.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value, origin);
  } catch {
    return null;
  }
  if (url.origin !== origin || url.pathname === SIGN_IN_PATH) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}

export const setupQuery = queryOptions({
  queryKey: ["setup"],
  queryFn: () => unwrap(api.setup.$get()),
});

type LoginAnswer = InferResponseType<typeof api.login.$post, 200>;
/** The password was right and two-factor sign-in is on: the code comes next. */
export const needsSecondFactor = (answer: LoginAnswer): answer is Extract<LoginAnswer, { secondFactor: "required" }> => "secondFactor" in answer;

/** docs/screens.md §4: a new sign-in starts from a clean cache, then stores the user. */
function useSignedIn() {
  const qc = useQueryClient();
  return (user: CurrentUser) => {
    qc.clear();
    qc.setQueryData(userQuery.queryKey, user);
  };
}

export function useLogin() {
  const signedIn = useSignedIn();
  return useMutation({
    mutationFn: async (input: { username: string; password: string }): Promise<LoginAnswer> => unwrap(api.login.$post({ json: input })),
    onSuccess: (answer) => {
      if (!needsSecondFactor(answer)) signedIn(answer);
    },
  });
}

/** The second sign-in step: a 6-digit code or a recovery code. */
export function useSecondFactor() {
  const signedIn = useSignedIn();
  return useMutation({
    mutationFn: (code: string) => unwrap(api.login["second-factor"].$post({ json: { code } })),
    onSuccess: signedIn,
  });
}

export function useRegister() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: { username: string; password: string; setupToken?: string | undefined }) => unwrap(api.register.$post({ json: input })),
    onSuccess: (user) => {
      qc.setQueryData(userQuery.queryKey, user);
      qc.setQueryData(setupQuery.queryKey, { needsSetup: false, needsSetupToken: false });
    },
  });
}

export function useLogout() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.logout.$post()),
    onSuccess: () => {
      qc.clear();
      qc.setQueryData(userQuery.queryKey, null);
    },
  });
}
