CREATE TABLE `cake_click_shards` (
	`date` text NOT NULL,
	`day` integer NOT NULL,
	`shard` integer NOT NULL,
	PRIMARY KEY(`date`, `day`, `shard`)
);
