CREATE TABLE `campaign_paths` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`campaign_id` integer NOT NULL,
	`position` integer NOT NULL,
	`name` text NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`conditions` text NOT NULL,
	`direct_to_offer` integer DEFAULT false NOT NULL,
	`sticky_days` integer,
	`optimise_mode` text DEFAULT 'off' NOT NULL,
	`optimise_window_days` integer DEFAULT 7 NOT NULL,
	`optimise_floor_percent` real DEFAULT 5 NOT NULL,
	`optimise_min_visits` integer DEFAULT 200 NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `campaign_paths_campaign_idx` ON `campaign_paths` (`campaign_id`,`position`);--> statement-breakpoint
CREATE TABLE `path_landers` (
	`id` integer PRIMARY KEY NOT NULL,
	`path_id` integer NOT NULL,
	`lander_id` integer NOT NULL,
	`position` integer NOT NULL,
	`weight` integer NOT NULL,
	`paused` integer DEFAULT false NOT NULL,
	`pinned` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`path_id`) REFERENCES `campaign_paths`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`lander_id`) REFERENCES `landers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `path_landers_path_lander_unique` ON `path_landers` (`path_id`,`lander_id`);--> statement-breakpoint
CREATE INDEX `path_landers_lander_idx` ON `path_landers` (`lander_id`);--> statement-breakpoint
CREATE TABLE `path_offers` (
	`id` integer PRIMARY KEY NOT NULL,
	`path_id` integer NOT NULL,
	`offer_id` integer NOT NULL,
	`position` integer NOT NULL,
	`weight` integer NOT NULL,
	`paused` integer DEFAULT false NOT NULL,
	`pinned` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`path_id`) REFERENCES `campaign_paths`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`offer_id`) REFERENCES `offers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `path_offers_path_offer_unique` ON `path_offers` (`path_id`,`offer_id`);--> statement-breakpoint
CREATE INDEX `path_offers_offer_idx` ON `path_offers` (`offer_id`);--> statement-breakpoint
CREATE TABLE `path_weight_history` (
	`id` integer PRIMARY KEY NOT NULL,
	`path_id` integer NOT NULL,
	`at` integer NOT NULL,
	`user_id` text,
	`reason` text NOT NULL,
	`weights` text NOT NULL,
	FOREIGN KEY (`path_id`) REFERENCES `campaign_paths`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `path_weight_history_path_at_idx` ON `path_weight_history` (`path_id`,`at`);--> statement-breakpoint
ALTER TABLE `clicks` ADD `path_id` integer;--> statement-breakpoint
ALTER TABLE `clicks` ADD `lander_id` integer;--> statement-breakpoint
ALTER TABLE `clicks` ADD `offer_id` integer;