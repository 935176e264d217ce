CREATE TABLE `click_archives` (
	`day` text PRIMARY KEY NOT NULL,
	`time_zone` text NOT NULL,
	`start_ms` integer NOT NULL,
	`end_ms` integer NOT NULL,
	`object_key` text NOT NULL,
	`rows` integer NOT NULL,
	`exits` integer NOT NULL,
	`bytes` integer NOT NULL,
	`max_click_id` integer NOT NULL,
	`claimed_at` integer NOT NULL,
	`archived_at` integer,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE TABLE `refused_clicks` (
	`id` integer PRIMARY KEY NOT NULL,
	`campaign_id` integer NOT NULL,
	`period_start` integer NOT NULL,
	`clicks` integer DEFAULT 0 NOT NULL,
	`exits` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `refused_clicks_campaign_period_unique` ON `refused_clicks` (`campaign_id`,`period_start`);--> statement-breakpoint
CREATE INDEX `refused_clicks_period_idx` ON `refused_clicks` (`period_start`);