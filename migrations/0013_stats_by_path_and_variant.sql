-- Stats by path, lander and lander × offer (docs/traffic-distribution.md "Reports"): three more
-- dimensions of click_audience_daily and cake_audience_daily ('path', 'lander', 'landerOffer'),
-- and the Lander grouping reads the lander each click was sent to instead of its campaign's.
-- The values follow AUDIENCE_VALUE in worker/src/db/queries/click-rollup.ts: a click stored before
-- paths went to its campaign's lander and offer, through the campaign's implicit default path
-- 'c<campaign id>'.

-- Our clicks: an unknown time zone makes the cron's next click rollup start over, counting every
-- stored click under the new dimensions too (the report reads raw clicks until then: slower, never
-- wrong). A rebuild keeps the rows of the days whose raw clicks are archived, since nothing could
-- rebuild them, so theirs are written here from click_daily_stats and their campaigns.
UPDATE `click_rollup_state` SET `time_zone` = '';
--> statement-breakpoint
INSERT INTO `click_audience_daily` (`dim`, `date`, `campaign_id`, `tiktok_campaign_id`, `value`, `bot`, `clicks`, `exits`)
SELECT a.dim, d.date, d.campaign_id, d.tiktok_campaign_id,
  CASE a.dim
    WHEN 'path' THEN 'c' || d.campaign_id
    WHEN 'lander' THEN coalesce(cast(c.lander_id AS text), 'unknown')
    ELSE coalesce(cast(c.lander_id AS text), 'unknown') || '|' || coalesce(cast(c.offer_id AS text), 'none')
  END,
  d.bot, sum(d.clicks), sum(d.exits)
FROM `click_daily_stats` d
JOIN `campaigns` c ON c.id = d.campaign_id
CROSS JOIN (SELECT value AS dim FROM json_each('["path","lander","landerOffer"]')) a
WHERE d.date <= coalesce((SELECT max(day) FROM `click_archives` WHERE archived_at IS NOT NULL), '')
GROUP BY 1, 2, 3, 4, 5, 6;
--> statement-breakpoint
-- CAKE's figures: rebuilt per day by each pull, but only for the days a pull covers, so every day
-- is written here once. Days whose clicks are archived keep the campaign cake_attributed_daily
-- matched while the clicks were there; later days read the click each row came from (sub2).
INSERT INTO `cake_audience_daily` (`dim`, `date`, `campaign_id`, `tiktok_campaign_id`, `value`, `subid1`, `subid3`, `clicks`, `conversions`, `revenue_cents`)
SELECT a.dim, r.date, r.campaign_id, r.tiktok_campaign_id,
  CASE
    WHEN r.campaign_id = 0 THEN ''
    WHEN a.dim = 'path' THEN 'c' || r.campaign_id
    WHEN a.dim = 'lander' THEN coalesce(cast(c.lander_id AS text), 'unknown')
    ELSE coalesce(cast(c.lander_id AS text), 'unknown') || '|' || coalesce(cast(c.offer_id AS text), 'none')
  END,
  r.subid1, r.subid3, sum(r.clicks), sum(r.conversions), sum(r.revenue_cents)
FROM `cake_attributed_daily` r
LEFT JOIN `campaigns` c ON c.id = r.campaign_id
CROSS JOIN (SELECT value AS dim FROM json_each('["path","lander","landerOffer"]')) a
WHERE r.date <= coalesce((SELECT max(day) FROM `click_archives` WHERE archived_at IS NOT NULL), '')
GROUP BY 1, 2, 3, 4, 5, 6, 7;
--> statement-breakpoint
INSERT INTO `cake_audience_daily` (`dim`, `date`, `campaign_id`, `tiktok_campaign_id`, `value`, `subid1`, `subid3`, `clicks`, `conversions`, `revenue_cents`)
SELECT a.dim, s.date, coalesce(k.campaign_id, 0), coalesce(k.tiktok_campaign_id, ''),
  coalesce(CASE a.dim
    WHEN 'path' THEN coalesce(cast(k.path_id AS text), 'c' || k.campaign_id)
    WHEN 'lander' THEN coalesce(cast(k.lander_id AS text),
      CASE WHEN k.path_id IS NULL THEN (SELECT cast(c.lander_id AS text) FROM `campaigns` c WHERE c.id = k.campaign_id) ELSE 'none' END, 'unknown')
    ELSE coalesce(cast(k.lander_id AS text),
        CASE WHEN k.path_id IS NULL THEN (SELECT cast(c.lander_id AS text) FROM `campaigns` c WHERE c.id = k.campaign_id) ELSE 'none' END, 'unknown')
      || '|' || coalesce(cast(k.offer_id AS text),
        CASE WHEN k.path_id IS NULL AND k.lander_id IS NULL THEN (SELECT cast(c.offer_id AS text) FROM `campaigns` c WHERE c.id = k.campaign_id) END, 'none')
  END, ''),
  s.subid1, s.subid3, sum(s.clicks), sum(s.conversions), sum(s.revenue_cents)
FROM `cake_stats` s
LEFT JOIN `clicks` k ON s.subid2 <> '' AND k.click_id = s.subid2
CROSS JOIN (SELECT value AS dim FROM json_each('["path","lander","landerOffer"]')) a
WHERE s.date > coalesce((SELECT max(day) FROM `click_archives` WHERE archived_at IS NOT NULL), '')
GROUP BY 1, 2, 3, 4, 5, 6, 7;
