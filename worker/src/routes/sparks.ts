import { Hono } from "hono";
import { audit, fields } from "../audit/record";
import { createSpark, deleteSpark, getSpark, listSparks } from "../db/queries/sparks";
import type { AppEnv, SessionUser } from "../env";
import { ApiError, notFound } from "../lib/errors";
import { iso } from "../lib/time";
import { validate } from "../lib/validate";
import { idParam } from "../schemas/common";
import { createSparkSchema } from "../schemas/sparks";
import { invalidateTrackedCampaigns } from "../tracking/campaign-cache";

const sparkJson = (s: { id: number; name: string; code: string; sparkId: string; createdAt: number }) => ({
  ...s,
  createdAt: iso(s.createdAt),
});

/** docs/product-rules.md: admins see every spark; a member only those assigned to them. */
function scopeOf(user: SessionUser | null) {
  if (!user) throw new ApiError(401, "You are not signed in");
  return user.role === "admin" ? null : user.id;
}

export const sparkRoutes = new Hono<AppEnv>()
  .get("/", async (c) => c.json((await listSparks(c.get("db"), scopeOf(c.get("user")))).map(sparkJson), 200))

  .post("/", validate("json", createSparkSchema), async (c) => {
    const input = c.req.valid("json");
    // A member's new spark is assigned to them, or they could not see what they just made.
    const spark = await createSpark(c.get("db"), input, scopeOf(c.get("user")), {
      alongside: (id) => [audit(c, { action: "spark.create", kind: "spark", id, summary: `Name: ${input.name}` })],
    });
    return c.json(sparkJson(spark), 201);
  })

  .delete("/:id", validate("param", idParam), async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const scope = scopeOf(c.get("user"));
    // Someone else's spark answers like a missing one: members learn nothing outside their scope.
    const before = await getSpark(db, id, scope);
    if (!before) throw notFound("Spark not found");
    const [deleted] = await db.batch([
      deleteSpark(db, id, scope),
      audit(c, { action: "spark.delete", kind: "spark", id, summary: fields(before, { name: "Name", sparkId: "Spark ID" }) }, { ifChanged: true }),
    ]);
    if (!deleted.length) throw notFound("Spark not found");
    // Campaigns using it lose it (set null): /click must stop sending its sparkId in {spark}.
    invalidateTrackedCampaigns();
    return c.json({ ok: true }, 200);
  });
