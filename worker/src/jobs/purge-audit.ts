import { purgeAuditBefore } from "../db/queries/audit";
import { AUDIT_RETENTION_DAYS } from "../schemas/audit";
import type { Job } from "./index";

export const purgeOldAuditEntries: Job = {
  name: "purge-audit-log",
  async run({ db, now }) {
    await purgeAuditBefore(db, now - AUDIT_RETENTION_DAYS * 24 * 60 * 60 * 1000);
  },
};
