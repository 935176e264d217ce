ALTER TABLE `domains` ADD `purchase_started_at` integer;--> statement-breakpoint
ALTER TABLE `domains` ADD `worker_domain_id` text;--> statement-breakpoint
ALTER TABLE `domains` ADD `zone_status` text;--> statement-breakpoint
ALTER TABLE `domains` ADD `activation_checked_at` integer;--> statement-breakpoint
ALTER TABLE `domains` ADD `lease_until` integer;