import { zValidator } from "@hono/zod-validator";
import type { ValidationTargets } from "hono";
import type { ZodType } from "zod";
import { ApiError } from "./errors";

const TARGET_NAMES: Record<keyof ValidationTargets, string> = {
  json: "request body",
  form: "form",
  query: "query",
  param: "path",
  header: "headers",
  cookie: "cookies",
};

/**
 * zod validation for every input, failing with our JSON error shape: 400, a summary sentence and
 * one `field: message` line per problem. Nothing reads a body or query unchecked.
 */
export const validate = <T extends ZodType, Target extends keyof ValidationTargets>(target: Target, schema: T) =>
  zValidator(target, schema, (result) => {
    if (result.success) return;
    const details = result.error.issues.map((issue) => (issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message));
    const first = result.error.issues[0]?.message ?? "Invalid input";
    throw new ApiError(400, details.length === 1 ? first : `Invalid ${TARGET_NAMES[target]}: ${first}`, details);
  });
