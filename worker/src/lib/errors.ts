import type { ContentfulStatusCode } from "hono/utils/http-status";

/** The one error shape every API failure uses (docs/product-rules.md): `{ error, details? }`. */
export interface ApiErrorBody {
  error: string;
  details?: string[];
  /** A machine-readable reason where the web app acts on it (auth/reauth.ts REAUTH_NEEDED). */
  code?: string;
}

/** Thrown anywhere below a route; `app.onError` turns it into the JSON error shape. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly details?: string[],
    readonly headers?: Record<string, string>,
    readonly code?: string,
  ) {
    super(message);
    this.name = "ApiError";
  }

  toBody(): ApiErrorBody {
    return {
      error: this.message,
      ...(this.details?.length ? { details: this.details } : {}),
      ...(this.code ? { code: this.code } : {}),
    };
  }
}

export const badRequest = (message: string, details?: string[]) => new ApiError(400, message, details);
export const notFound = (message = "Not found") => new ApiError(404, message);
export const forbidden = (message = "You do not have permission to do that") => new ApiError(403, message);
export const conflict = (message: string) => new ApiError(409, message);
