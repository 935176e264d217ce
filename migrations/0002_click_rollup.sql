CREATE TABLE `click_rollup_state` (
	`id` integer PRIMARY KEY NOT NULL,
	`time_zone` text NOT NULL,
	`click_watermark` integer DEFAULT 0 NOT NULL,
	`anchor_click_id` text,
	`exit_watermark` integer DEFAULT 0 NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `clicks_exited_at_idx` ON `clicks` (`exited_at`) WHERE exited_at is not null;