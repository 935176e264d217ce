import { Hono } from "hono";
import { listNotifications, markAllRead } from "../db/queries/notifications";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { iso, isoOrNull } from "../lib/time";

const userIdOf = (user: AppEnv["Variables"]["user"]) => {
  if (!user) throw new ApiError(401, "You are not signed in");
  return user.id;
};

/** The signed-in user's own notification list (the header's bell): the latest, and how many are unread. */
export const notificationRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const { items, unread } = await listNotifications(c.get("db"), userIdOf(c.get("user")));
    return c.json({ unread, items: items.map((n) => ({ ...n, createdAt: iso(n.createdAt), readAt: isoOrNull(n.readAt) })) }, 200);
  })
  .post("/read-all", async (c) => {
    await markAllRead(c.get("db"), userIdOf(c.get("user")), Date.now());
    return c.json({ ok: true }, 200);
  });
