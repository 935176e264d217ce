ALTER TABLE `domains` ADD `expires_at` integer;--> statement-breakpoint
ALTER TABLE `domains` ADD `detached_at` integer;--> statement-breakpoint
ALTER TABLE `domains` ADD `health_checked_at` integer;