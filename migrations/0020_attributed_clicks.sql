CREATE TABLE `attributed_clicks` (
	`id` integer PRIMARY KEY NOT NULL,
	`click_id` text NOT NULL,
	`campaign_id` integer NOT NULL,
	`tiktok_campaign_id` text,
	`tiktok_ad_group_id` text,
	`tiktok_creative_id` text,
	`placement` text,
	`campaign_name` text,
	`ad_group_name` text,
	`creative_name` text,
	`ip_address` text,
	`user_agent` text,
	`clicked_at` integer NOT NULL,
	`exited_at` integer,
	`ttclid` text,
	`country` text,
	`region` text,
	`city` text,
	`asn` integer,
	`as_organization` text,
	`device_type` text,
	`os` text,
	`browser` text,
	`bot` integer DEFAULT false NOT NULL,
	`bot_reason` text,
	`path_id` integer,
	`lander_id` integer,
	`offer_id` integer,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `attributed_clicks_click_id_unique` ON `attributed_clicks` (`click_id`);--> statement-breakpoint
CREATE INDEX `attributed_clicks_clicked_at_idx` ON `attributed_clicks` (`clicked_at`);