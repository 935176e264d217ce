CREATE TABLE `webhook_deliveries` (
	`id` integer PRIMARY KEY NOT NULL,
	`subscription_id` integer NOT NULL,
	`event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`attempt` integer NOT NULL,
	`ok` integer NOT NULL,
	`status` integer,
	`error` text,
	`duration_ms` integer NOT NULL,
	`at` integer NOT NULL,
	FOREIGN KEY (`subscription_id`) REFERENCES `webhook_subscriptions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_subscription_idx` ON `webhook_deliveries` (`subscription_id`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_subscriptions` (
	`id` integer PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`secret` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`failures` integer DEFAULT 0 NOT NULL,
	`disabled_at` integer,
	`disabled_reason` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_subscriptions_user_idx` ON `webhook_subscriptions` (`user_id`);--> statement-breakpoint
ALTER TABLE `cake_conversions` ADD `webhook_at` integer;--> statement-breakpoint
-- Conversions stored before webhooks existed were never "created" to a subscriber: a re-pull must not send them now.
UPDATE `cake_conversions` SET `webhook_at` = 0 WHERE `webhook_at` IS NULL;
