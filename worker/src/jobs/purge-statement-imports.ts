import { dropAbandonedStagedRows } from "../db/queries/transactions";
import type { Job } from "./index";

/**
 * An upload stages its rows and deletes them itself when it ends, written or failed
 * (billing/import-statement.ts). One cut off on the way (the isolate stopped mid-upload) leaves
 * them behind; an upload takes seconds, so rows staged an hour ago belong to no upload still running.
 */
export const STAGED_ROWS_MAX_AGE_MS = 60 * 60 * 1000;

export const purgeAbandonedStatementImports: Job = {
  name: "purge-abandoned-statement-imports",
  async run({ db, now }) {
    await dropAbandonedStagedRows(db, now - STAGED_ROWS_MAX_AGE_MS);
  },
};
