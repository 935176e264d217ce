CREATE TABLE `statement_import_rows` (
	`id` integer PRIMARY KEY NOT NULL,
	`upload_id` text NOT NULL,
	`dedupe_key` text NOT NULL,
	`first_line` integer NOT NULL,
	`row` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `statement_import_rows_upload_key` ON `statement_import_rows` (`upload_id`,`dedupe_key`);--> statement-breakpoint
CREATE INDEX `statement_import_rows_created_idx` ON `statement_import_rows` (`created_at`);