/**
 * Whether conversions can be sent to TikTok now, and with what: the admin's settings (pixel code,
 * test event code) and the secret token. Missing pieces make sending "not configured" with the
 * reasons, and conversions are then recorded as skipped rather than sent.
 */
import { readEventSettings } from "../db/queries/tiktok-events";
import type { Bindings, Db } from "../env";
import type { TikTokEventsConfig } from "../integrations/tiktok-events";
import { NO_PIXEL_CODE, type TikTokEventSettings } from "../schemas/tiktok-events";
import { tiktokBaseUrl, type Setup } from "../sync/config";

export function eventsSetup(env: Bindings, settings: TikTokEventSettings): Setup<TikTokEventsConfig> {
  const problems: string[] = [];
  if (!settings.pixelCode) problems.push(NO_PIXEL_CODE);
  const accessToken = env.TIKTOK_EVENTS_ACCESS_TOKEN?.trim() ?? "";
  if (!accessToken) problems.push("TIKTOK_EVENTS_ACCESS_TOKEN is not set");
  const baseUrl = tiktokBaseUrl(env, problems);
  if (problems.length || !baseUrl) return { problems, config: null };
  return { problems, config: { baseUrl, accessToken, pixelCode: settings.pixelCode, testEventCode: settings.testEventCode || null } };
}

export async function loadEventsSetup(db: Db, env: Bindings) {
  const settings = await readEventSettings(db);
  return { settings, ...eventsSetup(env, settings) };
}
