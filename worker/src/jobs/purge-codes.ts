import { retentionHours } from "../codes/config";
import { forgetCodesVersion } from "../codes/version";
import { deleteCodesReceivedBefore } from "../db/queries/codes";
import type { Job } from "./index";

/** Codes are secrets with a short life: keep them CODES_RETENTION_HOURS (default 72) after receipt. */
export const purgeOldCodes: Job = {
  name: "purge-old-codes",
  async run({ db, env, now }) {
    const deleted = await deleteCodesReceivedBefore(db, now - retentionHours(env.CODES_RETENTION_HOURS) * 60 * 60 * 1000);
    if (deleted) forgetCodesVersion();
  },
};
