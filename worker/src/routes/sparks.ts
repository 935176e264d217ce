import { Hono } from "hono";
import { createSpark, deleteSpark, listSparks } from "../db/queries/sparks";
import type { AppEnv, SessionUser } from "../env";
import { ApiError, notFound } from "../lib/errors";
import { iso } from "../lib/time";
import { validate } from "../lib/validate";
import { idParam } from "../schemas/common";
import { createSparkSchema } from "../schemas/sparks";

const sparkJson = (s: { id: number; name: string; code: string; sparkId: string; createdAt: number }) => ({
  ...s,
  createdAt: iso(s.createdAt),
});

/** decisions.md: admins see every spark; a member only those assigned to them. */
function scopeOf(user: SessionUser | null) {
  if (!user) throw new ApiError(401, "You are not signed in");
  return user.role === "admin" ? null : user.id;
}

export const sparkRoutes = new Hono<AppEnv>()
  .get("/", async (c) => c.json((await listSparks(c.get("db"), scopeOf(c.get("user")))).map(sparkJson), 200))

  .post("/", validate("json", createSparkSchema), async (c) => {
    // A member's new spark is assigned to them, or they could not see what they just made.
    const spark = await createSpark(c.get("db"), c.req.valid("json"), scopeOf(c.get("user")));
    return c.json(sparkJson(spark), 201);
  })

  .delete("/:id", validate("param", idParam), async (c) => {
    // Someone else's spark answers like a missing one: members learn nothing outside their scope.
    if (!(await deleteSpark(c.get("db"), c.req.valid("param").id, scopeOf(c.get("user"))))) throw notFound("Spark not found");
    return c.json({ ok: true }, 200);
  });
