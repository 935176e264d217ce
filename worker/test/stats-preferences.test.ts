import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { userDashboardPreferences, users } from "../src/db/schema";
import type { ApiErrorBody } from "../src/lib/errors";
import { call, db, makeUser } from "./helpers";

const put = (cookie: string, json: unknown) => call("/api/user/preferences", { method: "PUT", json, cookie });

describe("GET and PUT /api/user/preferences", () => {
  it("answers the defaults (every column, no widths) before anything is saved", async () => {
    const user = await makeUser();
    const res = await call("/api/user/preferences", { cookie: user.cookie });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ visibleColumns: [], columnWidths: {} });
  });

  it("stores the caller's own choice, answers it, and replaces it on the next PUT", async () => {
    const user = await makeUser();
    const other = await makeUser("admin");
    const choice = { visibleColumns: ["name", "revenue", "landerCtr"], columnWidths: { name: 240, revenue: 96.5 } };
    const saved = await put(user.cookie, choice);
    expect(saved.status).toBe(200);
    expect(await saved.json()).toEqual(choice);
    expect(await (await call("/api/user/preferences", { cookie: user.cookie })).json()).toEqual(choice);
    // Another user's preferences are their own.
    expect(await (await call("/api/user/preferences", { cookie: other.cookie })).json()).toEqual({ visibleColumns: [], columnWidths: {} });

    const next = { visibleColumns: [], columnWidths: { cpv: 40, epv: 800 } };
    expect(await (await put(user.cookie, next)).json()).toEqual(next);
    expect(await (await call("/api/user/preferences", { cookie: user.cookie })).json()).toEqual(next);
    const rows = await db().select().from(userDashboardPreferences).where(eq(userDashboardPreferences.userId, user.id));
    expect(rows).toHaveLength(1);
  });

  it.each([
    [{ visibleColumns: ["name", "browser"], columnWidths: {} }, "visibleColumns.1: Unknown column"],
    [{ visibleColumns: ["name", "name"], columnWidths: {} }, "visibleColumns lists a column twice"],
    [{ visibleColumns: [], columnWidths: { country: 100 } }, 'columnWidths.country: Unknown column "country"'],
    [{ visibleColumns: [], columnWidths: { name: 39 } }, "Column widths must be at least 40 px"],
    [{ visibleColumns: [], columnWidths: { name: 801 } }, "Column widths must be at most 800 px"],
    [{ visibleColumns: [], columnWidths: { name: "wide" } }, "Column widths must be numbers"],
    [{ visibleColumns: Array(51).fill("name"), columnWidths: {} }, "at most 50 columns"],
    [{ visibleColumns: [] }, "columnWidths must be an object"],
    [{ visibleColumns: [], columnWidths: {}, theme: "dark" }, "Unknown field: theme"],
    [[], "The preferences must be an object"],
  ])("refuses %j with 400 and stores nothing", async (body, message) => {
    const user = await makeUser();
    const res = await put(user.cookie, body);
    expect(res.status).toBe(400);
    const answer = await res.json<ApiErrorBody>();
    expect([answer.error, ...(answer.details ?? [])].join(" | ")).toContain(message);
    expect(await db().select().from(userDashboardPreferences).where(eq(userDashboardPreferences.userId, user.id))).toEqual([]);
  });

  it("refuses a body that is not JSON", async () => {
    const user = await makeUser();
    const res = await call("/api/user/preferences", {
      method: "PUT",
      body: "visibleColumns=name",
      headers: { "content-type": "application/json" },
      cookie: user.cookie,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toHaveProperty("error");
  });

  it("leaves out columns a stored preference names that this version does not know", async () => {
    const user = await makeUser();
    await db()
      .insert(userDashboardPreferences)
      .values({ userId: user.id, visibleColumns: ["name", "retired"], columnWidths: { retired: 100, roi: 120 } });
    expect(await (await call("/api/user/preferences", { cookie: user.cookie })).json()).toEqual({
      visibleColumns: ["name"],
      columnWidths: { roi: 120 },
    });
  });

  it("goes with the user when the user is deleted", async () => {
    const user = await makeUser();
    await put(user.cookie, { visibleColumns: ["name"], columnWidths: {} });
    await db().delete(users).where(eq(users.id, user.id));
    expect(await db().select().from(userDashboardPreferences).where(eq(userDashboardPreferences.userId, user.id))).toEqual([]);
  });
});
