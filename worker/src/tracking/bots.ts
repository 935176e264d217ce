/**
 * Whether a click came from a crawler, an ad reviewer, a link preview or a script, and why. The
 * answer only marks the click: every visitor gets the same redirect (no cloaking), and the
 * stats leave flagged clicks out of Link Clicks, Lander CTR and the click shares that split
 * spend unless asked to include them.
 *
 * The agents ad traffic is known to carry come first, each with a reason in words; isbot (a
 * maintained pattern list) catches the long tail of other crawlers; a data-centre network
 * (datacenter-asns.ts) is the last test. Runs when the click batch is written, never on /r/.
 */
import { isbotMatch } from "isbot";
import { DATACENTER_ASNS } from "./datacenter-asns";

/** Known agents and what they are; the first match names the reason. */
const KNOWN_AGENTS: [RegExp, (name: string) => string][] = [
  [/thirdLandingPageFeInfra/i, () => "ad review: TikTok landing-page preloader"],
  [/TikTokSpider|ttspider/i, () => "ad review: TikTokSpider"],
  [/Bytespider/i, () => "crawler: Bytespider"],
  [/facebookexternalhit|facebookcatalog|meta-externalagent|meta-externalfetcher|facebookbot/i, (n) => `ad review: Meta (${n})`],
  [/AdsBot-Google(?:-Mobile)?|Mediapartners-Google|Google-Adwords-Instant|Google-Ads-\w+/i, (n) => `ad review: Google (${n})`],
  [/HeadlessChrome|PhantomJS|Puppeteer|Playwright|Selenium|Lighthouse|Chrome-Lighthouse/i, (n) => `headless browser (${n})`],
  [
    /^(?:curl|wget|python-requests|python-urllib|python-httpx|aiohttp|httpx|Go-http-client|axios|node-fetch|undici|okhttp|Java|Apache-HttpClient|libwww-perl|Ruby|PHP|GuzzleHttp|PostmanRuntime|insomnia|Scrapy|HTTPie)\b/i,
    (n) => `HTTP library (${n})`,
  ],
  [
    /Slackbot|Slack-ImgProxy|Twitterbot|WhatsApp|TelegramBot|Discordbot|LinkedInBot|Pinterestbot|Snapchat|Applebot|redditbot|SkypeUriPreview|Embedly|vkShare|Viber/i,
    (n) => `link preview (${n})`,
  ],
];

/** How much of a matched pattern the reason quotes. */
const QUOTE_MAX = 40;
const quote = (text: string) => (text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX)}…` : text);

/** The reason the user agent is a bot's, or null when it looks like a person's browser. */
export function agentReason(userAgent: string | null | undefined): string | null {
  const ua = userAgent?.trim() ?? "";
  if (!ua) return "empty user agent";
  for (const [pattern, reason] of KNOWN_AGENTS) {
    const match = pattern.exec(ua);
    if (match) return reason(quote(match[0]));
  }
  const crawler = isbotMatch(ua);
  return crawler ? `crawler (${quote(crawler)})` : null;
}

/** The reason a network (Cloudflare's ASN of the visitor) is a data centre's, or null. */
export function networkReason(asn: number | null | undefined): string | null {
  const network = asn == null ? undefined : DATACENTER_ASNS.get(asn);
  return network ? `data-centre network (AS${asn} ${network})` : null;
}

/** The reason a click is a bot's, or null for a visitor that looks like a person. */
export const botReason = (userAgent: string | null | undefined, asn: number | null | undefined) => agentReason(userAgent) ?? networkReason(asn);
