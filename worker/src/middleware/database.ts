import { drizzle } from "drizzle-orm/d1";
import { createMiddleware } from "hono/factory";
import * as schema from "../db/schema";
import type { AppEnv, Db } from "../env";

// One Drizzle instance per D1 binding and isolate: building it walks the whole schema.
const instances = new WeakMap<D1Database, Db>();

export function createDb(d1: D1Database): Db {
  let db = instances.get(d1);
  if (!db) {
    db = drizzle(d1, { schema });
    instances.set(d1, db);
  }
  return db;
}

export const database = createMiddleware<AppEnv>(async (c, next) => {
  c.set("db", createDb(c.env.DB));
  await next();
});
