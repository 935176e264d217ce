import type { DrizzleD1Database } from "drizzle-orm/d1";
import type * as schema from "./db/schema";
import type { Feature, Role } from "./db/schema";

export type Db = DrizzleD1Database<typeof schema>;

/** Secrets are set with `wrangler secret put` (locally in `.dev.vars`), so `wrangler types` cannot see them. */
export interface Secrets {
  SESSION_SECRET: string;
}

export type Bindings = Env & Secrets;

/** Who is calling: loaded once per request from the session row (see auth/session.ts). */
export interface SessionUser {
  id: string;
  username: string;
  role: Role;
  permissions: Feature[];
  sessionId: string;
}

export interface AppEnv {
  Bindings: Bindings;
  Variables: {
    db: Db;
    user: SessionUser | null;
  };
}
