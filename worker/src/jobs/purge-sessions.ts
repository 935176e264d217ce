import { lt } from "drizzle-orm";
import { THROTTLE_WINDOW_MS } from "../auth/throttle";
import { loginAttempts, sessions } from "../db/schema";
import type { Job } from "./index";

export const purgeExpiredSessions: Job = {
  name: "purge-expired-sessions",
  async run({ db, now }) {
    await db.batch([
      db.delete(sessions).where(lt(sessions.expiresAt, now)),
      db.delete(loginAttempts).where(lt(loginAttempts.attemptedAt, now - THROTTLE_WINDOW_MS)),
    ]);
  },
};
