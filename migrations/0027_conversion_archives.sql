CREATE TABLE `conversion_archives` (
	`id` integer PRIMARY KEY NOT NULL,
	`date` text NOT NULL,
	`chunk` integer NOT NULL,
	`object_key` text NOT NULL,
	`conversions` integer NOT NULL,
	`sends` integer NOT NULL,
	`bytes` integer NOT NULL,
	`last_postback_at` integer,
	`archived_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `conversion_archives_date_chunk_unique` ON `conversion_archives` (`date`,`chunk`);