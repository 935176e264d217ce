import { useSyncExternalStore } from "react";
import { ApiError } from "./api";

/**
 * Admin changes to another user's password, role or second factor need a re-authentication of the
 * session within 5 minutes (worker/src/auth/reauth.ts). A call refused with 403 and the code
 * `reauth-needed` opens the one re-authentication dialog (components/reauth-dialog.tsx); once the
 * password (and code) are accepted the call is sent again, and cancelling fails it as refused.
 */
export const REAUTH_NEEDED = "reauth-needed";

interface Pending {
  resolve(): void;
  reject(error: unknown): void;
}

let waiting: Pending[] = [];
const listeners = new Set<() => void>();
const notify = () => listeners.forEach((l) => l());

/** Whether the dialog is asked for, for the dialog's host. */
export function useReauthRequested(): boolean {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => waiting.length > 0,
  );
}

/** The dialog's outcome: every call waiting on it is retried (done) or fails with `error` (cancelled). */
export function settleReauth(outcome: { done: true } | { done: false; error: unknown }) {
  const settled = waiting;
  waiting = [];
  notify();
  for (const p of settled) {
    if (outcome.done) p.resolve();
    else p.reject(outcome.error);
  }
}

export const isReauthNeeded = (err: unknown) => err instanceof ApiError && err.status === 403 && err.code === REAUTH_NEEDED;

/** Runs `send`; when the server asks for a re-authentication, asks for it and sends once more. */
export async function withReauth<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (err) {
    if (!isReauthNeeded(err)) throw err;
    await new Promise<void>((resolve, reject) => {
      waiting.push({ resolve, reject: () => reject(err) });
      notify();
    });
    return send();
  }
}
