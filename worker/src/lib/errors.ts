import type { ContentfulStatusCode } from "hono/utils/http-status";

/** The one error shape every API failure uses (docs/product-rules.md): `{ error, details? }`. */
export interface ApiErrorBody {
  error: string;
  details?: string[];
}

/** Thrown anywhere below a route; `app.onError` turns it into the JSON error shape. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly details?: string[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "ApiError";
  }

  toBody(): ApiErrorBody {
    return this.details?.length ? { error: this.message, details: this.details } : { error: this.message };
  }
}

export const badRequest = (message: string, details?: string[]) => new ApiError(400, message, details);
export const notFound = (message = "Not found") => new ApiError(404, message);
export const forbidden = (message = "You do not have permission to do that") => new ApiError(403, message);
export const conflict = (message: string) => new ApiError(409, message);
