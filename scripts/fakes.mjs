// `npm run fakes`: the local stand-ins (worker/test/fakes/) served on 127.0.0.1 for `npm start` /
// `npm run dev` to call: Namecheap and Cloudflare, an HTTPS relay like the README's nginx one and
// a SOCKS5 proxy (domain automation), and CAKE, TikTok's reports, TikTok's Events API, Slack's
// incoming webhooks and Telegram's sendMessage (alert channels) on one
// port (scripts/lib/fakes.mjs). Prints the variables to start Trackyard with. Ctrl+C stops them.
//
//   FAKES_PORT (default 9000): Namecheap on it, Cloudflare +1, the relay +2, SOCKS5 +3,
//     CAKE / TikTok / Events API +20.
//   FAKE_ACTIVATION_DELAY_MS (default 20000): how long after Trackyard asks Cloudflare to re-check a
//     zone whose nameservers point at it that the zone turns active (the cron, or Retry
//     Configuration, then attaches the tracking hostname).
//
// Names with a story: taken.xyz (registered), gold.xyz (premium, $450), vip.xyz (premium, $3.50),
// early.xyz (Early Access fee). Control: POST http://127.0.0.1:<cloudflare port>/__fake/activate?zone=name
// makes a zone active at once; GET /__fake/state on either fake shows what it holds and was asked.
import { FAKE_ADVERTISER, FAKE_EVENTS_TOKEN, loadFakeModule, startFakes } from "./lib/fakes.mjs";
import { serveFetch } from "./lib/serve-fetch.mjs";
import { startSocks5Server } from "./fakes/socks5-server.mjs";

const base = Number(process.env.FAKES_PORT ?? 9000);
const activationDelayMs = Number(process.env.FAKE_ACTIVATION_DELAY_MS ?? 20_000);

const { createNamecheapFake, createRelayFake } = await loadFakeModule("namecheap-fake.ts");
const { createCloudflareFake } = await loadFakeModule("cloudflare-fake.ts");

const namecheap = createNamecheapFake({
  premium: { "gold.xyz": { registration: "450.00", renewal: "450.00" }, "vip.xyz": { registration: "3.50", renewal: "3.50" } },
  eap: { "early.xyz": "75.00" },
  // Every caller is this machine; the fake pretends it is the whitelisted static IP.
  whitelist: ["203.0.113.7"],
  callerIp: "203.0.113.7",
});
const cloudflare = createCloudflareFake({
  activationDelayMs,
  delegated: (name, ns) => [...namecheap.nameserversOf(name)].sort().join() === [...ns].sort().join(),
});
const relayKey = "local-relay-key";
const relay = createRelayFake({ key: relayKey, egressIp: "203.0.113.7", upstream: namecheap.handle });

const json = (body) => new Response(JSON.stringify(body, null, 2), { headers: { "content-type": "application/json" } });
const withControl = (handle, control) => async (request) => {
  const url = new URL(request.url);
  if (!url.pathname.startsWith("/__fake/")) return handle(request);
  return control(url, request) ?? new Response("unknown control path", { status: 404 });
};

const servers = await Promise.all([
  serveFetch(
    withControl(namecheap.handle, (url) =>
      url.pathname === "/__fake/state"
        ? json({
            domains: Object.fromEntries(namecheap.state.domains),
            orders: namecheap.state.orders,
            balance: namecheap.state.balance,
            calls: namecheap.state.requests.map((r) => r.command),
          })
        : null,
    ),
    base,
  ),
  serveFetch(
    withControl(cloudflare.handle, (url, request) => {
      if (url.pathname === "/__fake/activate" && request.method === "POST") {
        cloudflare.activate(url.searchParams.get("zone") ?? "");
        return json({ zone: cloudflare.zoneByName(url.searchParams.get("zone") ?? "") ?? null });
      }
      if (url.pathname === "/__fake/state") {
        return json({
          zones: [...cloudflare.state.zones.values()],
          workerDomains: [...cloudflare.state.workerDomains.values()],
          calls: cloudflare.state.requests.map((r) => `${r.method} ${r.path}`),
        });
      }
      return null;
    }),
    base + 1,
  ),
  serveFetch(relay.handle, base + 2),
]);
const socks = await startSocks5Server({ port: base + 3 });
const data = await startFakes({ port: base + 20 });

const common = [
  `NAMECHEAP_API_USER=${namecheap.state.apiUser}`,
  `NAMECHEAP_API_KEY=${namecheap.state.apiKey}`,
  "NAMECHEAP_CLIENT_IP=203.0.113.7",
  `CLOUDFLARE_API_URL=http://127.0.0.1:${base + 1}/client/v4`,
  `CLOUDFLARE_API_TOKEN=${cloudflare.state.token}`,
  `CLOUDFLARE_ACCOUNT_ID=${cloudflare.state.accountId}`,
].join(" ");
const nc = `NAMECHEAP_API_URL=http://127.0.0.1:${base}/xml.response`;
console.log(`Fakes are listening:
  Namecheap   http://127.0.0.1:${base}/xml.response
  Cloudflare  http://127.0.0.1:${base + 1}/client/v4
  relay       http://127.0.0.1:${base + 2}  (key ${relayKey})
  SOCKS5      127.0.0.1:${socks.port}  (user fake, password fake)

Start Trackyard against them (another terminal), directly:
  ${nc} ${common} npm start
through the relay:
  ${nc} NAMECHEAP_PROXY=http://127.0.0.1:${base + 2} NAMECHEAP_RELAY_KEY=${relayKey} ${common} npm start
through the SOCKS5 proxy (experimental):
  ${nc} NAMECHEAP_PROXY=socks5://fake:fake@127.0.0.1:${socks.port} ${common} npm start

CAKE, TikTok's reports and its Events API (${data.url}), for .dev.vars or the command line:
  CAKE_BASE_URL=${data.url} CAKE_API_KEY=${data.cake.state.apiKey} CAKE_AFFILIATE_ID=${data.cake.state.affiliateId}
  TIKTOK_BASE_URL=${data.url} TIKTOK_ACCESS_TOKEN=${data.tiktok.state.accessToken} TIKTOK_ADVERTISER_IDS=${FAKE_ADVERTISER}
  TIKTOK_EVENTS_ACCESS_TOKEN=${FAKE_EVENTS_TOKEN}
What the Events API received: curl ${data.url}/__fake/events
Slack and Telegram for alert channels (any https://hooks.slack.com/services/T…/B…/… URL and any bot token work):
  SLACK_BASE_URL=${data.url} TELEGRAM_BASE_URL=${data.url}
What they received: curl ${data.url}/__fake/slack  ·  curl ${data.url}/__fake/telegram

The cron finishes waiting zones every 15 minutes; to run it now: curl http://localhost:8787/__scheduled
Ctrl+C stops the fakes.`);

const stop = () => {
  for (const { server } of servers) server.close();
  socks.server.close();
  data.close().then(() => process.exit(0));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
