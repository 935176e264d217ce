CREATE TABLE `click_shard_days` (
	`day` integer PRIMARY KEY NOT NULL,
	`shards` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `click_shard_rollups` (
	`day` integer NOT NULL,
	`shard` integer NOT NULL,
	`click_watermark` integer DEFAULT 0 NOT NULL,
	`exit_watermark` integer DEFAULT 0 NOT NULL,
	`rolled_at` integer NOT NULL,
	PRIMARY KEY(`day`, `shard`)
);
