import { zValidator } from "@hono/zod-validator";
import type { ValidationTargets } from "hono";
import type { core, ZodType } from "zod";
import { ApiError } from "./errors";

const TARGET_NAMES: Record<keyof ValidationTargets, string> = {
  json: "request body",
  form: "form",
  query: "query",
  param: "path",
  header: "headers",
  cookie: "cookies",
};

/** Our JSON error for input that failed `schema`: 400, a summary sentence and one `field: message` line per problem. */
export function invalidInput(target: keyof ValidationTargets, error: core.$ZodError) {
  const details = error.issues.map((issue) => (issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message));
  const first = error.issues[0]?.message ?? "Invalid input";
  return new ApiError(400, details.length === 1 ? first : `Invalid ${TARGET_NAMES[target]}: ${first}`, details);
}

/** What a `validate` middleware checks: the OpenAPI description reads it off the routes (openapi/document.ts). */
export interface Validation {
  target: keyof ValidationTargets;
  schema: ZodType;
}
const validations = new WeakMap<object, Validation>();

/** The target and schema a route's handler validates, if it is a `validate` middleware. */
export const validationOf = (handler: object): Validation | undefined => validations.get(handler);

/**
 * zod validation for every input, failing with our JSON error shape (`invalidInput`). Nothing
 * reads a body or query unchecked.
 */
export const validate = <T extends ZodType, Target extends keyof ValidationTargets>(target: Target, schema: T) => {
  const middleware = zValidator(target, schema, (result) => {
    if (result.success) return;
    throw invalidInput(target, result.error);
  });
  validations.set(middleware, { target, schema });
  return middleware;
};
