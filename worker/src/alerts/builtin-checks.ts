/**
 * What each built-in alert looks at (docs/alerts.md "Built-in alerts"). A check returns the
 * occurrences it sees now, each named so that the same occurrence seen by the next cron run has
 * the same name (a failing streak by the last good run before it, a silence by the last postback,
 * a day's spend by its day and campaign): the firings table's unique key then lets each fire once.
 */
import { sql } from "drizzle-orm";
import { readClicksPipeline, recordBacklogCalm } from "../db/queries/click-pipeline";
import type { Bindings, Db } from "../env";
import { dayIn } from "../lib/calendar-days";
import { formatCents } from "../lib/money";
import type { AlertMessage } from "../schemas/alerts";
import type { BuiltinAlertKey } from "../schemas/builtin-alerts";
import { measuredDelay } from "../tracking/click-backlog";
import { clicksBetween } from "../tracking/click-log";

export interface CheckContext {
  db: Db;
  /** The shard-day objects, whose clicks count as D1's do (tracking/click-log.ts). */
  shards: Bindings["CLICK_SHARDS"];
  now: number;
  timeZone: string;
  /** The alert's number (its default unless an admin changed it); 0 for alerts without one. */
  threshold: number;
}

export interface Occurrence {
  occurrence: string;
  message: Omit<AlertMessage, "source">;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const WEEK_MS = 7 * DAY_MS;
const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

/** Clicks flow, no CAKE postback for N hours, and the same hours a week ago had postbacks. */
async function postbackSilent({ db, shards, now, threshold }: CheckContext): Promise<Occurrence[]> {
  const since = now - threshold * HOUR_MS;
  // Capped count: "clicks are flowing" needs a handful, not a scan of a busy hour's millions.
  const clicks = await clicksBetween({ db, shards }, since, now);
  const [found] = await db.all<{ recent: number; lastWeek: number; lastPostback: number | null }>(sql`
    select
      (select count(*) from cake_conversions where postback_at >= ${since} and postback_at < ${now}) as recent,
      (select count(*) from cake_conversions where postback_at >= ${since - WEEK_MS} and postback_at < ${now - WEEK_MS}) as lastWeek,
      (select max(postback_at) from cake_conversions where postback_at < ${now}) as lastPostback`);
  const row = found && { ...found, clicks };
  if (!row || row.clicks === 0 || row.recent > 0 || row.lastWeek === 0) return [];
  return [
    {
      occurrence: `since:${row.lastPostback ?? "never"}`,
      message: {
        title: "CAKE postback silent",
        text: `No CAKE postback in the last ${plural(threshold, "hour")} while clicks kept coming; the same hours last week had ${plural(row.lastWeek, "postback")}. Check the postback URL in CAKE and POSTBACK_TOKEN.`,
        facts: [
          { label: `Clicks, last ${threshold} h`, value: row.clicks >= 10000 ? "10,000+" : row.clicks.toLocaleString("en-US") },
          { label: `Postbacks, last ${threshold} h`, value: "0" },
          { label: "Postbacks, same hours last week", value: row.lastWeek.toLocaleString("en-US") },
          { label: "Last postback", value: row.lastPostback ? new Date(row.lastPostback).toISOString() : "never" },
        ],
        link: "/",
        severity: "critical",
      },
    },
  ];
}

/** TikTok campaigns that spent at least $N today (report day) with no CAKE conversion attributed to them. */
async function spendWithoutConversions({ db, now, timeZone, threshold }: CheckContext): Promise<Occurrence[]> {
  const day = dayIn(now, timeZone);
  const rows = await db.all<{ tiktokCampaignId: string; campaignName: string; spendCents: number }>(sql`
    select s.tiktok_campaign_id as tiktokCampaignId, s.campaign_name as campaignName, s.spend_cents as spendCents
    from tiktok_spend s
    where s.date = ${day} and s.spend_cents >= ${threshold * 100}
      and coalesce((select sum(a.conversions) from cake_attributed_daily a where a.date = ${day} and a.tiktok_campaign_id = s.tiktok_campaign_id), 0) = 0
    order by s.spend_cents desc`);
  return rows.map((r) => ({
    occurrence: `${day}:${r.tiktokCampaignId}`,
    message: {
      title: `TikTok spend without conversions: ${r.campaignName || r.tiktokCampaignId}`,
      text: `The TikTok campaign spent $${formatCents(r.spendCents)} on ${day} with no CAKE conversion attributed to its clicks.`,
      facts: [
        { label: "Campaign", value: `${r.campaignName || "(no name)"} (${r.tiktokCampaignId})` },
        { label: `Spend ${day}`, value: `$${formatCents(r.spendCents)}` },
        { label: "Conversions", value: "0" },
      ],
      link: "/",
      severity: "warning",
    },
  }));
}

/** A data source whose last N finished runs all failed; named by the last good run before the streak. */
async function syncFailing({ db, threshold }: CheckContext): Promise<Occurrence[]> {
  const out: Occurrence[] = [];
  for (const source of ["cake", "tiktok"] as const) {
    const runs = await db.all<{ id: number; status: string; error: string | null; startedAt: number }>(sql`
      select id, status, error, started_at as startedAt from sync_runs
      where source = ${source} and status in ('ok', 'error')
      order by started_at desc, id desc limit ${threshold}`);
    if (runs.length < threshold || runs.some((r) => r.status !== "error")) continue;
    const [lastOk] = await db.all<{ id: number | null }>(sql`select max(id) as id from sync_runs where source = ${source} and status = 'ok'`);
    const name = source === "cake" ? "CAKE" : "TikTok";
    out.push({
      occurrence: `${source}:after:${lastOk?.id ?? 0}`,
      message: {
        title: `${name} sync failing`,
        text: `The ${name} sync failed ${threshold} times running. Last error: ${runs[0]!.error ?? "(none recorded)"}`,
        facts: [
          { label: "Failed runs in a row", value: String(threshold) },
          { label: "Last failure", value: new Date(runs[0]!.startedAt).toISOString() },
        ],
        link: "/",
        severity: "critical",
      },
    });
  }
  return out;
}

/** Conversions TikTok's Events API could not take (failed at once or dead-lettered) in the last 24 hours; once a day. */
async function eventsApiFailures({ db, now, timeZone }: CheckContext): Promise<Occurrence[]> {
  const [row] = await db.all<{ failed: number; lastAt: number | null; message: string | null }>(sql`
    select count(*) as failed, max(updated_at) as lastAt,
      (select message from tiktok_event_sends where status = 'failed' and updated_at >= ${now - 24 * HOUR_MS} order by updated_at desc limit 1) as message
    from tiktok_event_sends where status = 'failed' and updated_at >= ${now - 24 * HOUR_MS}`);
  if (!row || row.failed === 0) return [];
  return [
    {
      occurrence: `day:${dayIn(now, timeZone)}`,
      message: {
        title: "TikTok Events API failures",
        text: `${plural(row.failed, "conversion")} could not be sent to TikTok's Events API in the last 24 hours. Last answer: ${row.message ?? "(none)"}`,
        facts: [
          { label: "Failed, last 24 h", value: row.failed.toLocaleString("en-US") },
          { label: "Latest", value: row.lastAt ? new Date(row.lastAt).toISOString() : "-" },
        ],
        link: "/",
        severity: "warning",
      },
    },
  ];
}

/**
 * Active tracking domains whose registration runs out within N days, or whose hostname the domains
 * check found missing from the Worker's custom domains (worker/src/domains/health.ts records both).
 * Once per domain and expiry date (a renewal moves the date: the next year's is a new occurrence),
 * and once per detachment (attached again clears it).
 */
async function domainExpiringOrDetached({ db, now, threshold }: CheckContext): Promise<Occurrence[]> {
  const rows = await db.all<{ domain: string; host: string; expiresAt: number | null; detachedAt: number | null }>(sql`
    select domain, subdomain || '.' || domain as host, expires_at as expiresAt, detached_at as detachedAt from domains
    where status = 'active' and ((expires_at is not null and expires_at <= ${now + threshold * DAY_MS}) or detached_at is not null)
    order by domain`);
  const out: Occurrence[] = [];
  for (const r of rows) {
    if (r.detachedAt !== null)
      out.push({
        occurrence: `detached:${r.domain}:${r.detachedAt}`,
        message: {
          title: `${r.host} detached from the Worker`,
          text: `${r.host} is no longer a custom domain of this Worker, so its tracking links are not answered. Settings → Redeploy Worker attaches it again.`,
          facts: [
            { label: "Hostname", value: r.host },
            { label: "Missing since", value: new Date(r.detachedAt).toISOString() },
          ],
          link: "/domains",
          severity: "critical",
        },
      });
    if (r.expiresAt !== null && r.expiresAt <= now + threshold * DAY_MS) {
      const day = new Date(r.expiresAt).toISOString().slice(0, 10);
      const days = Math.ceil((r.expiresAt - now) / DAY_MS);
      out.push({
        occurrence: `expires:${r.domain}:${day}`,
        message: {
          title: days > 0 ? `${r.domain} expires in ${plural(days, "day")}` : `${r.domain} has expired`,
          text: `Namecheap has the registration of ${r.domain} (tracking links on ${r.host}) running out on ${day}. Renew it at Namecheap, or its links stop working.`,
          facts: [
            { label: "Domain", value: r.domain },
            { label: "Expires", value: day },
          ],
          link: "/domains",
          severity: days <= 7 ? "critical" : "warning",
        },
      });
    }
  }
  return out;
}

/** An archive run that ended failed in the last day: once per archived day that failed. */
async function retentionFailing({ db, now }: CheckContext): Promise<Occurrence[]> {
  const rows = await db.all<{ day: string; outcome: string; endedAt: number }>(sql`
    select day, outcome, max(ended_at) as endedAt from click_archive_runs
    where ended_at >= ${now - 24 * HOUR_MS} and outcome like 'failed%'
    group by day order by day`);
  return rows.map((r) => ({
    occurrence: `day:${r.day}`,
    message: {
      title: `Archiving clicks of ${r.day} failing`,
      text: `The archive run for ${r.day} ${r.outcome}. Its raw clicks stay in D1 until a run succeeds.`,
      facts: [
        { label: "Day", value: r.day },
        { label: "Outcome", value: r.outcome },
        { label: "Ended", value: new Date(r.endedAt).toISOString() },
      ],
      link: "/clicks",
      severity: "warning",
    },
  }));
}

/** The rate limit refused at least N clicks in the last hour; at most once every 6 hours while it lasts. */
async function refusedClicksSpike({ db, now, threshold }: CheckContext): Promise<Occurrence[]> {
  const [row] = await db.all<{ clicks: number; campaigns: number }>(sql`
    select coalesce(sum(clicks), 0) as clicks, count(distinct campaign_id) as campaigns from refused_clicks where period_start >= ${now - HOUR_MS}`);
  if (!row || row.clicks < threshold) return [];
  return [
    {
      occurrence: `six-hours:${Math.floor(now / (6 * HOUR_MS))}`,
      message: {
        title: "Refused clicks spiking",
        text: `The per-IP rate limit refused ${plural(row.clicks, "click")} in the last hour across ${plural(row.campaigns, "campaign")}: a flood or a bot, or a limit too low for real traffic.`,
        facts: [
          { label: "Refused, last hour", value: row.clicks.toLocaleString("en-US") },
          { label: "Campaigns", value: String(row.campaigns) },
        ],
        link: "/clicks",
        severity: "warning",
      },
    },
  ];
}

/**
 * The clicks queue's measured delay (the last batch's lag, or a failed batch's wait) over N seconds
 * (tracking/click-backlog.ts). Once per spell: a check that finds no delay notes when, and the next
 * delay is named after that. A silence the consumer could not record (D1 refusing every write) is
 * not alerted on: it cannot be told from a paused campaign, and this alert's own record would fail too.
 */
async function clicksQueueBacklog({ db, now, threshold }: CheckContext): Promise<Occurrence[]> {
  const record = await readClicksPipeline(db);
  const delay = measuredDelay(record, now);
  if (!delay || delay.delayMs <= threshold * 1000) {
    await recordBacklogCalm(db, now);
    return [];
  }
  const behind = Math.round(delay.delayMs / 1000);
  const text =
    delay.reason === "failing"
      ? `Clicks are not being stored: the last attempt failed, and its oldest click has waited ${plural(behind, "second")}. The queue retries them for about 20 minutes, then the dead-letter queue for half a day.`
      : `The clicks queue's consumer stored its last batch ${plural(behind, "second")} after it was sent: the Click Log and the reports show new clicks that much later.`;
  return [
    {
      occurrence: `after:${record.calmAt ?? 0}`,
      message: {
        title: "Clicks queue backlog",
        text,
        facts: [
          { label: "Behind by", value: `${behind.toLocaleString("en-US")} s` },
          { label: "Threshold", value: `${threshold.toLocaleString("en-US")} s` },
          { label: "Last stored", value: record.storedAt === undefined ? "never" : new Date(record.storedAt).toISOString() },
        ],
        link: "/clicks",
        severity: delay.reason === "failing" ? "critical" : "warning",
      },
    },
  ];
}

export const BUILTIN_CHECKS: Record<BuiltinAlertKey, (ctx: CheckContext) => Promise<Occurrence[]>> = {
  "postback-silent": postbackSilent,
  "spend-without-conversions": spendWithoutConversions,
  "sync-failing": syncFailing,
  "events-api-failures": eventsApiFailures,
  "domain-expiring-or-detached": domainExpiringOrDetached,
  "retention-failing": retentionFailing,
  "refused-clicks-spike": refusedClicksSpike,
  "clicks-queue-backlog": clicksQueueBacklog,
};
