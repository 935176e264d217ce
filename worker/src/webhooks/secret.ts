/**
 * A subscription's signing secret at rest: encrypted like two-factor secrets (auth/two-factor.ts,
 * AES-256-GCM under TWO_FACTOR_KEY), with `webhook:<user id>` as associated data so a ciphertext
 * never decrypts as a second factor or as another user's secret. It must stay readable: every
 * delivery is signed with it.
 */
import { decryptSecret, encryptSecret, twoFactorConfigured, twoFactorKeys } from "../auth/two-factor";
import type { Bindings } from "../env";
import { ApiError } from "../lib/errors";

const associated = (userId: string) => `webhook:${userId}`;

export async function sealWebhookSecret(env: Pick<Bindings, "TWO_FACTOR_KEY">, userId: string, secret: string): Promise<string> {
  if (!twoFactorConfigured(env.TWO_FACTOR_KEY))
    throw new ApiError(503, "Webhooks are not set up on this server: their signing secrets are encrypted with the TWO_FACTOR_KEY secret, which is not set");
  return encryptSecret(await twoFactorKeys(env.TWO_FACTOR_KEY), associated(userId), secret);
}

export async function openWebhookSecret(env: Pick<Bindings, "TWO_FACTOR_KEY">, userId: string, stored: string): Promise<string> {
  return decryptSecret(await twoFactorKeys(env.TWO_FACTOR_KEY), associated(userId), stored);
}
