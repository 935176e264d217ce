import type { Miniflare } from "miniflare";

export function openLocalD1(
  stateDir: string,
  options?: { scriptPath?: string; workflow?: boolean; quiet?: boolean },
): { mf: Miniflare; db: () => Promise<D1Database>; archive: () => Promise<R2Bucket> };
export function registerFirstAdmin(url: string): Promise<string | undefined>;
