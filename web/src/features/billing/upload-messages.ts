import { ApiError } from "@/lib/api";
import type { ToastInput } from "@/components/ui/toast";
import type { UploadResult } from "./api";

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The success toast of docs/screens.md §8 ('Upload successful!' / 'Upload completed' and the counts). */
export function uploadSuccessToast(r: UploadResult): ToastInput {
  const parts = [
    r.clearedCount > 0 && `${r.clearedCount} new cleared`,
    r.pendingDeclinedCount > 0 && `${r.pendingDeclinedCount} pending/declined`,
    r.duplicateCount > 0 && `${plural(r.duplicateCount, "duplicate")} skipped`,
    r.errorCount > 0 && `${plural(r.errorCount, "validation error")}`,
  ].filter(Boolean);
  const list = parts.join(", ");
  return r.count > 0
    ? { title: "Upload successful!", description: `${plural(r.count, "total transaction")}: ${list}` }
    : { title: "Upload completed", description: `No new transactions. ${list}`.trim() };
}

/** The 'Validation Warnings' toast: only for 1 to 5 warnings, one per line. */
export const warningsToast = (r: UploadResult): ToastInput | null =>
  r.warnings.length >= 1 && r.warnings.length <= 5 ? { title: "Validation Warnings", description: r.warnings.join("\n") } : null;

/** The failure toast: the server's error, its first 3 details, then '...and N more errors'. */
export function uploadFailureToast(err: unknown): ToastInput {
  if (!(err instanceof ApiError)) {
    return { title: "Upload failed", description: err instanceof Error && err.message ? err.message : "Could not upload CSV file", variant: "destructive" };
  }
  const lines = [err.message || "Upload failed", ...err.details.slice(0, 3)];
  if (err.details.length > 3) lines.push(`...and ${err.details.length - 3} more errors`);
  return { title: "Upload failed", description: lines.join("\n"), variant: "destructive" };
}
