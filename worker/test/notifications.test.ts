import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { notifyAdmins } from "../src/db/queries/notifications";
import { notifications } from "../src/db/schema";
import type { Bindings } from "../src/env";
import { purgeOldNotifications } from "../src/jobs/purge-notifications";
import { bodyOf, client, db, makeAdmin, makeUser, uniqueName } from "./helpers";

describe("the in-app notification list", () => {
  it("lists a user's latest notifications, newest first, with the unread count, and marks them all read", async () => {
    const admin = await makeAdmin();
    const member = await makeUser("user", []);
    const title = uniqueName("alert");
    await notifyAdmins(db(), { title: `${title} one`, text: "First.", link: "/rules/alerts", severity: "warning", sourceKind: "builtin" }, Date.now() - 60_000);
    await notifyAdmins(db(), { title: `${title} two`, text: "Second.", link: null, severity: "critical", sourceKind: "builtin" }, Date.now());

    const list = await bodyOf(await client(admin).notifications.$get(), 200);
    expect(list.unread).toBe(2);
    expect(list.items.map((n) => n.title)).toEqual([`${title} two`, `${title} one`]);
    expect(list.items[1]).toMatchObject({ link: "/rules/alerts", severity: "warning", readAt: null, createdAt: expect.stringMatching(/Z$/) });

    // Admins only: a member's list stays empty.
    expect(await bodyOf(await client(member).notifications.$get(), 200)).toEqual({ unread: 0, items: [] });

    await bodyOf(await client(admin).notifications["read-all"].$post(), 200);
    const after = await bodyOf(await client(admin).notifications.$get(), 200);
    expect(after.unread).toBe(0);
    expect(after.items.every((n) => n.readAt !== null)).toBe(true);
  });

  it("the cron forgets notifications older than 90 days", async () => {
    const admin = await makeAdmin();
    const now = Date.now();
    await notifyAdmins(db(), { title: "Old", text: "Old.", link: null, severity: "info", sourceKind: "builtin" }, now - 91 * 86_400_000);
    await notifyAdmins(db(), { title: "Recent", text: "Recent.", link: null, severity: "info", sourceKind: "builtin" }, now - 89 * 86_400_000);
    await purgeOldNotifications.run({ db: db(), env: env as Bindings, now });
    const left = await db().select().from(notifications).where(eq(notifications.userId, admin.id));
    expect(left.map((n) => n.title)).toEqual(["Recent"]);
  });
});
