import type { Miniflare } from "miniflare";

export function openLocalD1(stateDir: string): { mf: Miniflare; db: () => Promise<D1Database> };
export function registerFirstAdmin(url: string): Promise<string | undefined>;
