CREATE TABLE `cake_audience_daily` (
	`id` integer PRIMARY KEY NOT NULL,
	`dim` text NOT NULL,
	`date` text NOT NULL,
	`campaign_id` integer DEFAULT 0 NOT NULL,
	`tiktok_campaign_id` text DEFAULT '' NOT NULL,
	`value` text DEFAULT '' NOT NULL,
	`subid1` text DEFAULT '' NOT NULL,
	`subid3` text DEFAULT '' NOT NULL,
	`clicks` integer DEFAULT 0 NOT NULL,
	`conversions` integer DEFAULT 0 NOT NULL,
	`revenue_cents` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cake_audience_daily_key_unique` ON `cake_audience_daily` (`dim`,`date`,`campaign_id`,`tiktok_campaign_id`,`value`,`subid1`,`subid3`);--> statement-breakpoint
CREATE TABLE `click_audience_daily` (
	`id` integer PRIMARY KEY NOT NULL,
	`dim` text NOT NULL,
	`date` text NOT NULL,
	`campaign_id` integer NOT NULL,
	`tiktok_campaign_id` text DEFAULT '' NOT NULL,
	`value` text DEFAULT '' NOT NULL,
	`bot` integer DEFAULT 0 NOT NULL,
	`clicks` integer DEFAULT 0 NOT NULL,
	`exits` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `click_audience_daily_key_unique` ON `click_audience_daily` (`dim`,`date`,`campaign_id`,`tiktok_campaign_id`,`value`,`bot`);--> statement-breakpoint
CREATE TABLE `tiktok_event_sends` (
	`id` integer PRIMARY KEY NOT NULL,
	`conversion_id` text NOT NULL,
	`event` text NOT NULL,
	`status` text NOT NULL,
	`skip_reason` text,
	`click_id` text,
	`ttclid` text,
	`ip_address` text,
	`user_agent` text,
	`page_url` text,
	`value_cents` integer,
	`currency` text,
	`event_at` integer NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`code` integer,
	`message` text,
	`lease_until` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`sent_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tiktok_event_sends_conversion_event_unique` ON `tiktok_event_sends` (`conversion_id`,`event`);--> statement-breakpoint
CREATE INDEX `tiktok_event_sends_status_idx` ON `tiktok_event_sends` (`status`,`updated_at`);--> statement-breakpoint
CREATE INDEX `tiktok_event_sends_updated_idx` ON `tiktok_event_sends` (`updated_at`);--> statement-breakpoint
DROP INDEX `click_daily_stats_key_unique`;--> statement-breakpoint
ALTER TABLE `click_daily_stats` ADD `bot` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `click_daily_stats_key_unique` ON `click_daily_stats` (`date`,`campaign_id`,`tiktok_campaign_id`,`tiktok_ad_group_id`,`tiktok_creative_id`,`placement`,`campaign_name`,`ad_group_name`,`creative_name`,`bot`);--> statement-breakpoint
ALTER TABLE `clicks` ADD `ttclid` text;--> statement-breakpoint
ALTER TABLE `clicks` ADD `country` text;--> statement-breakpoint
ALTER TABLE `clicks` ADD `region` text;--> statement-breakpoint
ALTER TABLE `clicks` ADD `city` text;--> statement-breakpoint
ALTER TABLE `clicks` ADD `asn` integer;--> statement-breakpoint
ALTER TABLE `clicks` ADD `as_organization` text;--> statement-breakpoint
ALTER TABLE `clicks` ADD `device_type` text;--> statement-breakpoint
ALTER TABLE `clicks` ADD `os` text;--> statement-breakpoint
ALTER TABLE `clicks` ADD `browser` text;--> statement-breakpoint
ALTER TABLE `clicks` ADD `bot` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `clicks` ADD `bot_reason` text;