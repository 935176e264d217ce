// `npm run fakes`: CAKE, TikTok's reports and TikTok's Events API as local fakes on one port
// (default 9020), so `npm start` can sync, take postbacks and send conversions without the real
// services. README, "Conversions sent to TikTok" shows the variables to point at it.
import { FAKE_ADVERTISER, FAKE_EVENTS_TOKEN, startFakes } from "./lib/fakes.mjs";

const port = Number(process.env.FAKES_PORT ?? 9020);
const fakes = await startFakes({ port });
console.log(`Fakes on ${fakes.url}. Start Trackyard against them with, in .dev.vars:
  CAKE_BASE_URL=${fakes.url}
  CAKE_API_KEY=${fakes.cake.state.apiKey}
  CAKE_AFFILIATE_ID=${fakes.cake.state.affiliateId}
  TIKTOK_BASE_URL=${fakes.url}
  TIKTOK_ACCESS_TOKEN=${fakes.tiktok.state.accessToken}
  TIKTOK_ADVERTISER_IDS=${FAKE_ADVERTISER}
  TIKTOK_EVENTS_ACCESS_TOKEN=${FAKE_EVENTS_TOKEN}
What the Events API received: curl ${fakes.url}/__fake/events`);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => fakes.close().then(() => process.exit(0)));
