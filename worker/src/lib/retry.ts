/** Waits `ms` on the calling request's own timer. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface RetryPolicy {
  /** Waits before each retry; its length is the number of retries. */
  delaysMs: readonly number[];
  /** Whether a failure is worth another attempt: a constraint violation or a bad token never gets better. */
  retryable: (err: unknown) => boolean;
  /** Injectable for tests. */
  sleep?: (ms: number) => Promise<void>;
}

/** Calls `attempt` until it succeeds, fails for good, or the retries run out. */
export async function withRetries<T>(attempt: () => Promise<T>, { delaysMs, retryable, sleep: wait = sleep }: RetryPolicy): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      const delay = delaysMs[i];
      if (delay === undefined || !retryable(err)) throw err;
      await wait(delay);
    }
  }
}
