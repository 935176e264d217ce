import { drizzle } from "drizzle-orm/d1";
import { createMiddleware } from "hono/factory";
import * as schema from "../db/schema";
import type { AppEnv, Db } from "../env";

export const createDb = (d1: D1Database): Db => drizzle(d1, { schema });

export const database = createMiddleware<AppEnv>(async (c, next) => {
  c.set("db", createDb(c.env.DB));
  await next();
});
