import { NOTIFICATION_RETENTION_DAYS, purgeNotificationsBefore } from "../db/queries/notifications";
import type { Job } from "./index";

export const purgeOldNotifications: Job = {
  name: "purge-notifications",
  async run({ db, now }) {
    await purgeNotificationsBefore(db, now - NOTIFICATION_RETENTION_DAYS * 24 * 60 * 60 * 1000);
  },
};
