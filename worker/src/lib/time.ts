/** Instants are stored as epoch milliseconds and sent as ISO-8601 UTC (docs/product-rules.md). */
export const iso = (ms: number) => new Date(ms).toISOString();
export const isoOrNull = (ms: number | null | undefined) => (ms == null ? null : iso(ms));
