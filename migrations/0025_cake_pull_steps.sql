CREATE TABLE `cake_pull_rows` (
	`run_id` integer NOT NULL,
	`start` text NOT NULL,
	`from_row` integer NOT NULL,
	`date` text NOT NULL,
	`offer_id` integer NOT NULL,
	`offer_name` text NOT NULL,
	`subid1` text NOT NULL,
	`subid2` text NOT NULL,
	`subid3` text NOT NULL,
	`clicks` integer NOT NULL,
	PRIMARY KEY(`run_id`, `start`, `from_row`, `date`, `offer_id`, `subid1`, `subid2`, `subid3`)
);
--> statement-breakpoint
ALTER TABLE `sync_runs` ADD `heartbeat_at` integer;