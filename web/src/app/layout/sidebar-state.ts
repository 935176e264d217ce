import { useCallback, useEffect, useState } from "react";

/** docs/screens.md §4 and §9: the expanded/collapsed choice lives in the `sidebar_state` cookie for 7 days. */
export const SIDEBAR_COOKIE = "sidebar_state";
const SIDEBAR_COOKIE_MAX_AGE = 604800;
export const MOBILE_BREAKPOINT = 768;

const readCookie = () => {
  const match = document.cookie.split("; ").find((c) => c.startsWith(`${SIDEBAR_COOKIE}=`));
  return match ? match.split("=")[1] !== "false" : true;
};

export function useIsMobile() {
  const query = `(max-width: ${MOBILE_BREAKPOINT - 1}px)`;
  const [mobile, setMobile] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const mql = window.matchMedia(query);
    const onChange = () => setMobile(mql.matches);
    mql.addEventListener("change", onChange);
    return () => mql.removeEventListener("change", onChange);
  }, [query]);
  return mobile;
}

/** Desktop: expanded or collapsed (saved). Phone: a slide-in panel, closed by default (not saved). */
export function useSidebar() {
  const isMobile = useIsMobile();
  const [expanded, setExpandedState] = useState(readCookie);
  const [mobileOpen, setMobileOpen] = useState(false);

  const setExpanded = useCallback((value: boolean) => {
    setExpandedState(value);
    document.cookie = `${SIDEBAR_COOKIE}=${value}; path=/; max-age=${SIDEBAR_COOKIE_MAX_AGE}; samesite=lax`;
  }, []);

  const toggle = useCallback(() => {
    if (isMobile) setMobileOpen((o) => !o);
    else setExpanded(!expanded);
  }, [isMobile, expanded, setExpanded]);

  // Ctrl+B / Cmd+B toggles the sidebar anywhere in the app.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key.toLowerCase() === "b" && (e.metaKey || e.ctrlKey) && !e.altKey && !e.shiftKey) {
        e.preventDefault();
        toggle();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [toggle]);

  return { isMobile, expanded, mobileOpen, setMobileOpen, toggle };
}
