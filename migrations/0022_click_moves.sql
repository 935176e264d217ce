CREATE TABLE `click_moves` (
	`id` integer PRIMARY KEY NOT NULL,
	`started_at` integer NOT NULL,
	`point` integer DEFAULT 0 NOT NULL,
	`moved` integer DEFAULT 0 NOT NULL,
	`from_ms` integer,
	`to_ms` integer,
	`run_id` text,
	`step_token` text,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `cake_conversions_subid2_idx` ON `cake_conversions` (`subid2`) WHERE subid2 <> '';--> statement-breakpoint
CREATE INDEX `cake_stats_subid2_idx` ON `cake_stats` (`subid2`) WHERE subid2 <> '';