/**
 * A screen's search parameters read with the API's own zod schema: shared by the web app (its
 * screens' state in the URL, web/src/lib/url-state.ts) and the Worker (the first calls of a
 * screen's document, lib/screen-calls.ts), so both read a link the same way.
 */
import type { z } from "zod";

/** Each parameter's value when the URL leaves it out. */
export type SearchDefaults = Record<string, string>;

/** `params` over `defaults` through `schema`, dropping what the schema refuses, key by key. */
export function parseSearch<S extends z.ZodType>(schema: S, params: URLSearchParams, defaults: SearchDefaults): z.output<S> {
  const given: Record<string, string> = {};
  for (const [key, value] of params) given[key] = value;
  for (let attempt = 0; attempt <= Object.keys(given).length; attempt++) {
    const result = schema.safeParse({ ...defaults, ...given });
    if (result.success) return result.data;
    const blamed = new Set(result.error.issues.map((issue) => issue.path[0]).filter((key): key is string => typeof key === "string" && key in given));
    // A refusal no single given key explains (a rule across keys): start over from the defaults.
    if (blamed.size === 0) break;
    for (const key of blamed) delete given[key];
  }
  return schema.parse(defaults);
}
