import { useCallback, useMemo } from "react";
import { useSearchParams } from "react-router";
import type { z } from "zod";
import { parseSearch, type SearchDefaults } from "../../../worker/src/lib/search-params";

/**
 * A screen's state in the URL's search parameters: the range, grouping, filters, sort and page a
 * user set survive a refresh, Back and Forward, and a link pasted to a teammate.
 *
 * Parameters are read with the API's own zod schema for the call they feed (plus the screen's own
 * keys), so the URL holds exactly what the API accepts. A parameter the schema refuses (edited by
 * hand, or stale after a rename) is dropped and its default used: a bad link shows the screen with
 * defaults, never an error page. Values equal to their default are left out of the URL.
 */
// Shared with the Worker, which reads a screen's document URL the same way (worker/src/lib/screen-calls.ts).
export { parseSearch, type SearchDefaults };

/** A parameter value to set; null, undefined or the key's default removes it from the URL. */
export type SearchPatch = Record<string, string | number | boolean | null | undefined>;

/** Applies `patch` to `params`: a value equal to its default (or empty) is removed. */
export function patchSearch(params: URLSearchParams, patch: SearchPatch, defaults: SearchDefaults): URLSearchParams {
  const next = new URLSearchParams(params);
  for (const [key, raw] of Object.entries(patch)) {
    const value = raw === null || raw === undefined ? "" : String(raw);
    if (value === "" || value === defaults[key]) next.delete(key);
    else next.set(key, value);
  }
  next.sort();
  return next;
}

export interface SearchState<T> {
  /** The parsed state: the URL's valid parameters over the defaults. */
  value: T;
  /**
   * Changes parameters. A new history entry by default, so Back returns to the previous state;
   * `replace` for changes as one types (a search box), which would otherwise flood the history.
   */
  update(patch: SearchPatch, options?: { replace?: boolean }): void;
}

/** The screen's state from the URL (see the module comment). `defaults` should be stable or memoised. */
export function useSearchState<S extends z.ZodType>(schema: S, defaults: SearchDefaults): SearchState<z.output<S>> {
  const [params, setParams] = useSearchParams();
  const value = useMemo(() => parseSearch(schema, params, defaults), [schema, params, defaults]);
  const update = useCallback(
    (patch: SearchPatch, options?: { replace?: boolean }) =>
      setParams((current) => patchSearch(current, patch, defaults), { replace: options?.replace ?? false }),
    [setParams, defaults],
  );
  return { value, update };
}
