/**
 * The part of `node:zlib` the click archives use (retention/archive-day.ts). workerd implements
 * the module natively under the `nodejs_compat` flag (wrangler.toml); the Workers types do not
 * declare it, and Node's own types would clash with the Workers globals.
 */
declare module "node:zlib" {
  interface ZlibOptions {
    level?: number;
    /** How a one-shot call ends its output: Z_SYNC_FLUSH leaves a deflate stream open for more. */
    finishFlush?: number;
  }
  export const constants: { Z_SYNC_FLUSH: number };
  export function deflateRawSync(data: Uint8Array, options?: ZlibOptions): Uint8Array;
  export function inflateRawSync(data: Uint8Array, options?: ZlibOptions): Uint8Array;
  /** CRC-32 of `data`, continuing from `value` (the CRC of what came before it). */
  export function crc32(data: Uint8Array | string, value?: number): number;
}
