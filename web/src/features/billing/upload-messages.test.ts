import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/api";
import { uploadFailureToast, uploadSuccessToast, warningsToast } from "./upload-messages";

const result = (over: Partial<Parameters<typeof uploadSuccessToast>[0]>) => ({
  count: 0,
  clearedCount: 0,
  pendingDeclinedCount: 0,
  duplicateCount: 0,
  errorCount: 0,
  warnings: [],
  details: [],
  ...over,
});

describe("upload toasts", () => {
  it("reports what was new", () => {
    expect(uploadSuccessToast(result({ count: 5, clearedCount: 3, pendingDeclinedCount: 2, duplicateCount: 1 }))).toEqual({
      title: "Upload successful!",
      description: "5 total transactions: 3 new cleared, 2 pending/declined, 1 duplicate skipped",
    });
  });

  it("says when nothing was new", () => {
    expect(uploadSuccessToast(result({ duplicateCount: 40, errorCount: 2 }))).toEqual({
      title: "Upload completed",
      description: "No new transactions. 40 duplicates skipped, 2 validation errors",
    });
  });

  it("shows warnings only when there are 1 to 5", () => {
    expect(warningsToast(result({ warnings: ["Line 3: Status is missing"] }))?.description).toBe("Line 3: Status is missing");
    expect(warningsToast(result({ warnings: Array(6).fill("x") }))).toBeNull();
    expect(warningsToast(result({}))).toBeNull();
  });

  it("lists the first three details of a refusal and counts the rest", () => {
    const t = uploadFailureToast(new ApiError(400, "Missing columns", ["a", "b", "c", "d", "e"]));
    expect(t).toEqual({ title: "Upload failed", description: "Missing columns\na\nb\nc\n...and 2 more errors", variant: "destructive" });
    expect(uploadFailureToast(new Error("")).description).toBe("Could not upload CSV file");
  });
});
