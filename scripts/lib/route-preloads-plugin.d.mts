import type { Plugin } from "vite";

/** The build plugin writing dist/client/route-preloads.json; `root` is the repository. */
export function routePreloads(root: string): Plugin;
