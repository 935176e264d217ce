CREATE TABLE `alert_channels` (
	`id` integer PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`settings` text NOT NULL,
	`secret` text DEFAULT '' NOT NULL,
	`builtin` integer DEFAULT false NOT NULL,
	`broken_at` integer,
	`broken_reason` text,
	`last_sent_at` integer,
	`last_status` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `builtin_alert_firings` (
	`id` integer PRIMARY KEY NOT NULL,
	`alert` text NOT NULL,
	`occurrence` text NOT NULL,
	`fired_at` integer NOT NULL,
	`title` text NOT NULL,
	`facts` text NOT NULL,
	`deliveries` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `builtin_alert_firings_unique` ON `builtin_alert_firings` (`alert`,`occurrence`);--> statement-breakpoint
CREATE INDEX `builtin_alert_firings_fired_idx` ON `builtin_alert_firings` (`alert`,`fired_at`);--> statement-breakpoint
CREATE TABLE `builtin_alert_settings` (
	`alert` text PRIMARY KEY NOT NULL,
	`enabled` integer NOT NULL,
	`threshold` integer,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `notifications` (
	`id` integer PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`title` text NOT NULL,
	`text` text NOT NULL,
	`link` text,
	`severity` text NOT NULL,
	`source_kind` text NOT NULL,
	`created_at` integer NOT NULL,
	`read_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `notifications_user_created_idx` ON `notifications` (`user_id`,`created_at`);