import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { loginAttempts, sessions } from "../src/db/schema";
import { runScheduled } from "../src/jobs";
import { db, makeUser } from "./helpers";

describe("scheduled clean-up", () => {
  it("removes expired sessions and stale login attempts, keeping live ones", async () => {
    const live = await makeUser();
    const stale = await makeUser();
    await db()
      .update(sessions)
      .set({ expiresAt: Date.now() - 1 })
      .where(eq(sessions.userId, stale.id));
    await db()
      .insert(loginAttempts)
      .values([
        { username: "old", ip: "1.1.1.1", attemptedAt: Date.now() - 60 * 60 * 1000 },
        { username: "new", ip: "1.1.1.1", attemptedAt: Date.now() },
      ]);
    const results = await runScheduled(env);
    expect(results.every((r) => r.status === "fulfilled")).toBe(true);
    expect(await db().select().from(sessions).where(eq(sessions.userId, stale.id))).toHaveLength(0);
    expect(await db().select().from(sessions).where(eq(sessions.userId, live.id))).toHaveLength(1);
    expect((await db().select().from(loginAttempts)).map((a) => a.username)).toEqual(["new"]);
  });
});
