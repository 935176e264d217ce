// Days of clicks generated straight into a local D1 in bulk, for the retention benchmarks
// (scripts/bench/click-retention.mjs, scripts/bench/retention-workflow.mjs): random UUID click
// ids like /r/'s, the ad values TikTok fills in, a visitor's place and device, 40% with an exit
// and its lander_clicks row. Campaigns 1..OUR_CAMPAIGNS and offer 1 must exist (seedCampaigns).

export const DAY_MS = 86_400_000;
export const TT_CAMPAIGNS = 222;
export const OUR_CAMPAIGNS = 40;
/** Rows per insert statement. */
const CHUNK = 100_000;

/** Ten landers, one offer, OUR_CAMPAIGNS campaigns: what the generated clicks point at. */
export async function seedCampaigns(d1) {
  await d1.batch([
    ...Array.from({ length: 10 }, (_, i) =>
      d1.prepare("insert into landers (id, name, url) values (?, ?, 'https://lander.test')").bind(i + 1, `Lander ${i + 1}`),
    ),
    d1.prepare("insert into offers (id, name, url, utm_template) values (1, 'Offer', 'https://offer.test', 'sub2={clickId}')"),
    ...Array.from({ length: OUR_CAMPAIGNS }, (_, i) =>
      // Made before every generated click (2020-01-01), as a campaign is before its clicks: the CAKE
      // attribution of a shard-day click checks it (db/queries/cake.ts `shardCakeQueries`).
      d1
        .prepare("insert into campaigns (id, name, lander_id, offer_id, created_at) values (?, ?, ?, 1, ?)")
        .bind(i + 1, `Campaign ${i + 1}`, (i % 10) + 1, Date.UTC(2020, 0, 1)),
    ),
  ]);
}

/**
 * The statement that inserts clicks ?1..?2 of a day of `count` starting at `start`, spread evenly
 * over it: a random UUID-shaped click id each (`clickId` builds it from `h`, 32 random hex digits;
 * default the v4 shape /r/ made before shard-days), the ad values TikTok fills in, a visitor's
 * place and device, 40% with an exit. With `firstId`, row ids follow from it (D1); without, the
 * table numbers them (a shard-day object: scripts/bench/workers/shard-sim.js).
 */
export function clickRowsSql({ start, count, firstId = null, clickId = null }) {
  const step = DAY_MS / count;
  const id = clickId ?? "substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3) || '-a' || substr(h, 18, 3) || '-' || substr(h, 21, 12)";
  return `with recursive n(i) as (select ?1 union all select i + 1 from n where i < ?2),
      r(i, h) as (select i, lower(hex(randomblob(16))) from n)
    insert into clicks (${firstId === null ? "" : "id, "}click_id, campaign_id, tiktok_campaign_id, tiktok_ad_group_id, tiktok_creative_id, placement,
      campaign_name, ad_group_name, creative_name, ip_address, user_agent, clicked_at, exited_at,
      ttclid, country, region, city, asn, as_organization, device_type, os, browser, bot)
    select ${firstId === null ? "" : `${firstId} + i, `}${id},
      (i % ${TT_CAMPAIGNS}) % ${OUR_CAMPAIGNS} + 1, '17990000' || (i % ${TT_CAMPAIGNS}),
      '17991000' || (i % ${TT_CAMPAIGNS}) || (i / ${TT_CAMPAIGNS} % 2), '17992000' || (i % ${TT_CAMPAIGNS}) || (i / ${TT_CAMPAIGNS} % 4),
      case i / ${TT_CAMPAIGNS * 4} % 2 when 0 then 'tiktok_feed' else 'pangle' end,
      'Spring sale ' || (i % ${TT_CAMPAIGNS}), 'Broad 18-34 ' || (i / ${TT_CAMPAIGNS} % 2), 'Video ' || (i / ${TT_CAMPAIGNS} % 4),
      '10.' || (i % 250) || '.' || (i / 250 % 250) || '.' || (i / 62500 % 250),
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 musical_ly_34.1.0',
      ${start} + cast(i * ${step} as integer),
      case when i % 5 < 2 then ${start} + cast(i * ${step} as integer) + 45000 end,
      -- What a TikTok visitor brings since the TikTok loop: a ttclid of TikTok's length, and the
      -- place, network and device read from the request (varied so indexes see many values).
      'E.C.P.' || h || h || substr(h, 1, 20), case i % 4 when 0 then 'US' when 1 then 'PH' when 2 then 'GB' else 'BR' end,
      'Region ' || (i % 40), 'City ' || (i % 300), 7000 + (i % 500), 'Carrier network ' || (i % 500),
      case i % 10 when 0 then 'desktop' when 1 then 'tablet' else 'mobile' end,
      case i % 3 when 0 then 'Android' else 'iOS' end, case i % 2 when 0 then 'TikTok' else 'Mobile Safari' end,
      case when i % 50 = 0 then 1 else 0 end
    from r`;
}

/**
 * `count` clicks spread evenly over the day starting at `start` (ids from `firstId`), and their
 * exits' lander_clicks rows. Returns the next free id.
 */
export async function generateClicks(d1, { start, firstId, count }) {
  const statement = clickRowsSql({ start, count, firstId });
  for (let from = 0; from < count; from += CHUNK) {
    const to = Math.min(from + CHUNK, count) - 1;
    await d1.prepare(statement).bind(from, to).run();
  }
  const last = firstId + count - 1;
  await d1
    .prepare(
      `insert into lander_clicks (click_id, offer_id, ip_address, user_agent, clicked_at)
       select click_id, 1, ip_address, user_agent, exited_at from clicks where id between ?1 and ?2 and exited_at is not null`,
    )
    .bind(firstId, last)
    .run();
  return last + 1;
}

/**
 * CAKE's report of a day's reported click ids, as the CAKE fake (worker/test/fakes/cake-fake.ts)
 * holds it: one click row each (sub2 the click id), a conversion of $5 for 1 in `every` (20).
 */
export function cakeRowsOf(ids, date, every = 20) {
  const common = (id, i) => ({ offer_id: 1, offer_name: "Offer", subid_1: `mb${i % 6}`, subid_2: id, subid_3: "" });
  return {
    clicks: ids.map((id, i) => ({ click_id: i + 1, click_date: `${date}T12:00:00`, ...common(id, i) })),
    conversions: ids.flatMap((id, i) =>
      i % every ? [] : [{ conversion_id: `cv-${id}`, conversion_date: `${date}T12:30:00`, ...common(id, i), price: "5.0000", disposition: "Approved" }],
    ),
  };
}
