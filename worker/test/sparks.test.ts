import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createSpark, randomSparkId, SPARK_ID_ATTEMPTS } from "../src/db/queries/sparks";
import { sparks, userSparkAssignments } from "../src/db/schema";
import type { ApiErrorBody } from "../src/lib/errors";
import { bodyOf, call, client, db, makeAdmin, makeUser, type TestUser } from "./helpers";

const create = async (user: TestUser, name = "Spark", code = "<script>spark()</script>") =>
  bodyOf(await client(user).sparks.$post({ json: { name, code } }), 201);
const listIds = async (user: TestUser) => (await bodyOf(await client(user).sparks.$get(), 200)).map((s) => s.id);

describe("sparks", () => {
  it("creates a spark with a generated sparkId, assigned to the member who made it", async () => {
    const member = await makeUser("user", ["sparks"]);
    const spark = await create(member, "  Evergreen ", "line 1\nline 2\n");
    expect(spark).toMatchObject({ name: "Evergreen", code: "line 1\nline 2" });
    expect(spark.sparkId).toMatch(/^[a-z0-9]{12}$/);
    const assigned = await db().select().from(userSparkAssignments).where(eq(userSparkAssignments.sparkId, spark.id));
    expect(assigned.map((a) => a.userId)).toEqual([member.id]);
  });

  it("scopes lists: members see their own sparks, admins see all", async () => {
    const alice = await makeUser("user", ["sparks"]);
    const bob = await makeUser("user", ["sparks"]);
    const admin = await makeAdmin();
    const a = await create(alice);
    const b = await create(bob);
    const byAdmin = await create(admin);

    expect(await listIds(alice)).toEqual([a.id]);
    expect(await listIds(bob)).toEqual([b.id]);
    const all = await listIds(admin);
    expect(all).toEqual(expect.arrayContaining([a.id, b.id, byAdmin.id]));
    // Newest first.
    expect(all.indexOf(byAdmin.id)).toBeLessThan(all.indexOf(a.id));
    // An admin's spark is nobody's assignment.
    expect(await db().select().from(userSparkAssignments).where(eq(userSparkAssignments.sparkId, byAdmin.id))).toEqual([]);
  });

  it("lets a member delete only their own sparks; someone else's answers 404 and stays", async () => {
    const alice = await makeUser("user", ["sparks"]);
    const bob = await makeUser("user", ["sparks"]);
    const a = await create(alice);
    const res = await call(`/api/sparks/${a.id}`, { method: "DELETE", cookie: bob.cookie });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "Spark not found" });
    expect(await db().select().from(sparks).where(eq(sparks.id, a.id))).toHaveLength(1);

    expect((await call(`/api/sparks/${a.id}`, { method: "DELETE", cookie: alice.cookie })).status).toBe(200);
    expect(await db().select().from(sparks).where(eq(sparks.id, a.id))).toHaveLength(0);
  });

  it("lets an admin delete any spark", async () => {
    const member = await makeUser("user", ["sparks"]);
    const admin = await makeAdmin();
    const s = await create(member);
    expect((await call(`/api/sparks/${s.id}`, { method: "DELETE", cookie: admin.cookie })).status).toBe(200);
    expect((await call(`/api/sparks/${s.id}`, { method: "DELETE", cookie: admin.cookie })).status).toBe(404);
  });

  it("gives dashboard-only members the list for the stats filter, not creation", async () => {
    const viewer = await makeUser("user", ["dashboard"]);
    expect((await call("/api/sparks", { cookie: viewer.cookie })).status).toBe(200);
    expect((await call("/api/sparks", { cookie: viewer.cookie, json: { name: "n", code: "c" } })).status).toBe(403);
  });

  it.each([
    [{ code: "c" }, "Name is required"],
    [{ name: " ", code: "c" }, "Name is required"],
    [{ name: "n" }, "Code is required"],
    [{ name: "n", code: "\n\n" }, "Code is required"],
    [{ name: "n".repeat(256), code: "c" }, "Name must be at most 255 characters"],
  ])("validates %j: %s", async (json, message) => {
    const member = await makeUser("user", ["sparks"]);
    const res = await call("/api/sparks", { cookie: member.cookie, json });
    expect(res.status).toBe(400);
    expect((await res.json<ApiErrorBody>()).error).toBe(message);
  });

  it("retries a colliding sparkId and never hands the member someone else's spark", async () => {
    const owner = await makeUser("user", ["sparks"]);
    const other = await makeUser("user", ["sparks"]);
    const existing = await createSpark(db(), { name: "Existing", code: "x" }, owner.id);
    const fresh = randomSparkId();
    const ids = [existing.sparkId, existing.sparkId, fresh];
    const created = await createSpark(db(), { name: "New", code: "y" }, other.id, { generateId: () => ids.shift()! });
    expect(created.sparkId).toBe(fresh);
    const others = await db().select().from(userSparkAssignments).where(eq(userSparkAssignments.userId, other.id));
    expect(others.map((a) => a.sparkId)).toEqual([created.id]);
  });

  it("gives up after a bounded number of collisions, writing nothing", async () => {
    const member = await makeUser("user", ["sparks"]);
    const existing = await createSpark(db(), { name: "Existing", code: "x" }, null);
    let attempts = 0;
    await expect(
      createSpark(db(), { name: "Never", code: "z" }, member.id, {
        generateId: () => {
          attempts++;
          return existing.sparkId;
        },
      }),
    ).rejects.toThrow(/UNIQUE constraint failed/);
    expect(attempts).toBe(SPARK_ID_ATTEMPTS);
    expect(await db().select().from(sparks).where(eq(sparks.name, "Never"))).toEqual([]);
    expect(await db().select().from(userSparkAssignments).where(eq(userSparkAssignments.userId, member.id))).toEqual([]);
  });

  it("draws spark ids from the whole alphabet without repeats", () => {
    const ids = Array.from({ length: 2000 }, randomSparkId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.join("")).size).toBe(36);
  });
});
