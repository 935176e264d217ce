export const FAKE_EVENTS_TOKEN: string;
export const FAKE_ADVERTISER: string;
export function loadFakeModule(file: string): Promise<Record<string, unknown>>;
export function startFakes(options?: { port?: number; eventsToken?: string }): Promise<{
  url: string;
  cake: import("../../worker/test/fakes/cake-fake").CakeFake;
  tiktok: import("../../worker/test/fakes/tiktok-fake").TikTokFake;
  events: import("../../worker/test/fakes/tiktok-events-fake").TikTokEventsFake;
  slack: import("../../worker/test/fakes/slack-fake").SlackFake;
  telegram: import("../../worker/test/fakes/telegram-fake").TelegramFake;
  close(): Promise<void>;
}>;
