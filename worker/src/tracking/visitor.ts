/**
 * What the click batch adds to each click before it is stored: the parsed user agent and the bot
 * flag. Cached per isolate, since a campaign's traffic repeats the same few agents.
 */
import { agentReason, networkReason } from "./bots";
import { parseUserAgent, type ParsedAgent } from "./user-agent";

export interface Visitor extends ParsedAgent {
  bot: boolean;
  botReason: string | null;
}

/** Bounded: emptied when full, so a flood of unique agents costs parse time, never memory. */
const CACHE_MAX = 5_000;
const agents = new Map<string, ParsedAgent & { uaReason: string | null }>();

export function describeVisitor(userAgent: string | null | undefined, asn: number | null | undefined): Visitor {
  const key = userAgent ?? "";
  let agent = agents.get(key);
  if (!agent) {
    if (agents.size >= CACHE_MAX) agents.clear();
    // The ASN part of the reason is per click, so the cache keeps the agent's own verdict.
    agent = { ...parseUserAgent(userAgent), uaReason: agentReason(userAgent) };
    agents.set(key, agent);
  }
  const reason = agent.uaReason ?? networkReason(asn);
  const { uaReason: _, ...parsed } = agent;
  return { ...parsed, bot: reason !== null, botReason: reason };
}
