CREATE TABLE `click_moves` (
	`id` integer PRIMARY KEY NOT NULL,
	`started_at` integer NOT NULL,
	`point` integer DEFAULT 0 NOT NULL,
	`moved` integer DEFAULT 0 NOT NULL,
	`from_ms` integer,
	`to_ms` integer,
	`run_id` text,
	`updated_at` integer NOT NULL
);
