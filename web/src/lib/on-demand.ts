import { useEffect, useState } from "react";

/**
 * A module fetched only when a control needs it (a calendar, a form in a dialog), so it is not
 * part of a screen's first load. Unlike React.lazy under Suspense, nothing is held back: React
 * keeps content that replaces a Suspense fallback hidden until 300 ms after that fallback appeared
 * (docs/screens.md "The web app: state in the URL, days and speed"), where here the control shows
 * its own placeholder for the few milliseconds the module takes, or none at all once `preload`
 * (on hover or focus of what opens it) has fetched it.
 */
export function onDemand<T>(load: () => Promise<T>) {
  let loaded: T | undefined;
  let pending: Promise<T> | undefined;
  const preload = (): Promise<T> => {
    pending ??= load().then(
      (m) => (loaded = m),
      (err: unknown) => {
        // Asked again next time (a browser may keep a failed module's answer for the page's life:
        // the control then says to reload).
        pending = undefined;
        throw err;
      },
    );
    return pending;
  };

  /** The module once `wanted` (fetching it then if no preload has), and whether fetching it failed. */
  function useModule(wanted: boolean): { module: T | undefined; failed: boolean } {
    const [module, setModule] = useState(loaded);
    const [failed, setFailed] = useState(false);
    useEffect(() => {
      if (!wanted || module) return;
      let live = true;
      setFailed(false);
      preload().then(
        (m) => live && setModule(() => m),
        () => live && setFailed(true),
      );
      return () => {
        live = false;
      };
    }, [wanted, module]);
    return { module: module ?? loaded, failed: wanted && failed };
  }

  return { preload, useModule };
}
