CREATE TABLE `cake_attributed_daily` (
	`id` integer PRIMARY KEY NOT NULL,
	`date` text NOT NULL,
	`campaign_id` integer DEFAULT 0 NOT NULL,
	`tiktok_campaign_id` text DEFAULT '' NOT NULL,
	`tiktok_ad_group_id` text DEFAULT '' NOT NULL,
	`tiktok_creative_id` text DEFAULT '' NOT NULL,
	`placement` text DEFAULT '' NOT NULL,
	`campaign_name` text DEFAULT '' NOT NULL,
	`ad_group_name` text DEFAULT '' NOT NULL,
	`creative_name` text DEFAULT '' NOT NULL,
	`offer_id` integer DEFAULT 0 NOT NULL,
	`offer_name` text DEFAULT '' NOT NULL,
	`subid1` text DEFAULT '' NOT NULL,
	`subid3` text DEFAULT '' NOT NULL,
	`clicks` integer DEFAULT 0 NOT NULL,
	`conversions` integer DEFAULT 0 NOT NULL,
	`revenue_cents` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cake_attributed_daily_key_unique` ON `cake_attributed_daily` (`date`,`campaign_id`,`tiktok_campaign_id`,`tiktok_ad_group_id`,`tiktok_creative_id`,`placement`,`campaign_name`,`ad_group_name`,`creative_name`,`offer_id`,`subid1`,`subid3`);--> statement-breakpoint
CREATE TABLE `cake_conversions` (
	`id` integer PRIMARY KEY NOT NULL,
	`conversion_id` text NOT NULL,
	`source` text NOT NULL,
	`date` text NOT NULL,
	`offer_id` integer DEFAULT 0 NOT NULL,
	`offer_name` text DEFAULT '' NOT NULL,
	`subid1` text DEFAULT '' NOT NULL,
	`subid2` text DEFAULT '' NOT NULL,
	`subid3` text DEFAULT '' NOT NULL,
	`revenue_cents` integer DEFAULT 0 NOT NULL,
	`disposition` text DEFAULT '' NOT NULL,
	`counted` integer NOT NULL,
	`postback_at` integer,
	`pulled_at` integer,
	`pull_run_id` integer,
	`retired_at` integer,
	`retired_reason` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cake_conversions_conversion_id_unique` ON `cake_conversions` (`conversion_id`);--> statement-breakpoint
CREATE INDEX `cake_conversions_date_idx` ON `cake_conversions` (`date`,`offer_id`,`subid1`,`subid2`,`subid3`);--> statement-breakpoint
CREATE INDEX `cake_conversions_click_idx` ON `cake_conversions` (`offer_id`,`subid2`);--> statement-breakpoint
CREATE TABLE `cake_sync_staging` (
	`id` integer PRIMARY KEY NOT NULL,
	`run_id` integer NOT NULL,
	`date` text NOT NULL,
	`offer_id` integer NOT NULL,
	`offer_name` text NOT NULL,
	`subid1` text NOT NULL,
	`subid2` text NOT NULL,
	`subid3` text NOT NULL,
	`clicks` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cake_sync_staging_key_unique` ON `cake_sync_staging` (`run_id`,`date`,`offer_id`,`subid1`,`subid2`,`subid3`);--> statement-breakpoint
CREATE TABLE `click_daily_stats` (
	`id` integer PRIMARY KEY NOT NULL,
	`date` text NOT NULL,
	`campaign_id` integer NOT NULL,
	`tiktok_campaign_id` text DEFAULT '' NOT NULL,
	`tiktok_ad_group_id` text DEFAULT '' NOT NULL,
	`tiktok_creative_id` text DEFAULT '' NOT NULL,
	`placement` text DEFAULT '' NOT NULL,
	`campaign_name` text DEFAULT '' NOT NULL,
	`ad_group_name` text DEFAULT '' NOT NULL,
	`creative_name` text DEFAULT '' NOT NULL,
	`clicks` integer DEFAULT 0 NOT NULL,
	`exits` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `click_daily_stats_key_unique` ON `click_daily_stats` (`date`,`campaign_id`,`tiktok_campaign_id`,`tiktok_ad_group_id`,`tiktok_creative_id`,`placement`,`campaign_name`,`ad_group_name`,`creative_name`);--> statement-breakpoint
CREATE INDEX `click_daily_stats_campaign_idx` ON `click_daily_stats` (`campaign_id`,`date`);--> statement-breakpoint
CREATE TABLE `sync_runs` (
	`id` integer PRIMARY KEY NOT NULL,
	`source` text NOT NULL,
	`trigger` text NOT NULL,
	`status` text NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer,
	`window_start` text,
	`window_end` text,
	`rows_fetched` integer DEFAULT 0 NOT NULL,
	`rows_upserted` integer DEFAULT 0 NOT NULL,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `sync_runs_source_started_idx` ON `sync_runs` (`source`,`started_at`);