/**
 * A fake's "no answer": pending until the caller gives up (its request signal aborts), or a 504
 * after `maxMs` for a caller that never does (a fake served over HTTP must not hold a socket forever).
 */
export const hangUntilAborted = (signal: AbortSignal, maxMs = 120_000) =>
  new Promise<Response>((resolve, reject) => {
    const timer = setTimeout(() => resolve(new Response("Gateway Timeout", { status: 504 })), maxMs);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    });
  });
