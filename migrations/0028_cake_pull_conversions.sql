CREATE TABLE `cake_pull_conversions` (
	`run_id` integer NOT NULL,
	`start` text NOT NULL,
	`conversion_id` text NOT NULL,
	`from_row` integer NOT NULL,
	`date` text NOT NULL,
	`offer_id` integer NOT NULL,
	`offer_name` text NOT NULL,
	`subid1` text NOT NULL,
	`subid2` text NOT NULL,
	`subid3` text NOT NULL,
	`revenue_cents` integer NOT NULL,
	`disposition` text NOT NULL,
	`counted` integer NOT NULL,
	`converted_at` integer,
	PRIMARY KEY(`run_id`, `start`, `conversion_id`)
);
