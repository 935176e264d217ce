import type { SessionUser } from "../env";

/**
 * The header every signed-in /api answer carries: a short fingerprint of what the session load
 * just read (who, role, stage, two-factor, features). The web app keeps the same value from
 * `GET /api/user` and reloads the user when an answer's differs, so a feature granted or taken
 * away shows on a member's screen at their next request, both ways
 * (docs/accounts-security.md "Accounts, roles and permissions"). It costs no D1 read: every request loads these
 * already (auth/session.ts).
 */
export const ACCESS_KEY_HEADER = "X-Access-Key";

/**
 * FNV-1a over the fields in a fixed order (features sorted), in base 36. Not a secret, and not a
 * check of anything: a collision would only delay one refresh until the next change.
 */
export function accessKey(user: Pick<SessionUser, "id" | "role" | "stage" | "twoFactorEnabled" | "permissions">): string {
  const canonical = [user.id, user.role, user.stage, user.twoFactorEnabled ? "2fa" : "", [...user.permissions].sort().join(",")].join("|");
  let hash = 0x811c9dc5;
  for (let i = 0; i < canonical.length; i++) {
    hash ^= canonical.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}
