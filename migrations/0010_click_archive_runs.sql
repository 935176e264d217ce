CREATE TABLE `click_archive_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`day` text NOT NULL,
	`run` integer NOT NULL,
	`object_key` text NOT NULL,
	`upload_id` text,
	`started_at` integer NOT NULL,
	`upload_closed_at` integer,
	`ended_at` integer,
	`outcome` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `click_archive_runs_day_run_unique` ON `click_archive_runs` (`day`,`run`);--> statement-breakpoint
CREATE INDEX `click_archive_runs_ended_idx` ON `click_archive_runs` (`ended_at`);