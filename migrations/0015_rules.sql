CREATE TABLE `rule_firings` (
	`id` integer PRIMARY KEY NOT NULL,
	`rule_id` integer NOT NULL,
	`item_key` text NOT NULL,
	`item_label` text NOT NULL,
	`fired_at` integer NOT NULL,
	`status` text NOT NULL,
	`figures` text NOT NULL,
	`action` text NOT NULL,
	`tiktok` text NOT NULL,
	`deliveries` text NOT NULL,
	`note` text DEFAULT '' NOT NULL,
	FOREIGN KEY (`rule_id`) REFERENCES `rules`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `rule_firings_rule_item_at_idx` ON `rule_firings` (`rule_id`,`item_key`,`fired_at`);--> statement-breakpoint
CREATE INDEX `rule_firings_rule_at_idx` ON `rule_firings` (`rule_id`,`fired_at`);--> statement-breakpoint
CREATE TABLE `rules` (
	`id` integer PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`scope` text NOT NULL,
	`window_amount` integer NOT NULL,
	`window_unit` text NOT NULL,
	`conditions` text NOT NULL,
	`guard` text,
	`cooldown_minutes` integer NOT NULL,
	`action` text NOT NULL,
	`act` text,
	`target` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
