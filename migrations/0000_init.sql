CREATE TABLE `cake_stats` (
	`id` integer PRIMARY KEY NOT NULL,
	`date` text NOT NULL,
	`offer_id` integer DEFAULT 0 NOT NULL,
	`offer_name` text DEFAULT '' NOT NULL,
	`subid1` text DEFAULT '' NOT NULL,
	`subid2` text DEFAULT '' NOT NULL,
	`subid3` text DEFAULT '' NOT NULL,
	`clicks` integer DEFAULT 0 NOT NULL,
	`conversions` integer DEFAULT 0 NOT NULL,
	`revenue_cents` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cake_stats_key_unique` ON `cake_stats` (`date`,`offer_id`,`subid1`,`subid2`,`subid3`);--> statement-breakpoint
CREATE INDEX `cake_stats_date_idx` ON `cake_stats` (`date`);--> statement-breakpoint
CREATE TABLE `campaigns` (
	`id` integer PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`lander_id` integer NOT NULL,
	`offer_id` integer,
	`domain_id` integer,
	`bh_toggle` integer DEFAULT false NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`lander_id`) REFERENCES `landers`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`offer_id`) REFERENCES `offers`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `campaigns_lander_idx` ON `campaigns` (`lander_id`);--> statement-breakpoint
CREATE INDEX `campaigns_offer_idx` ON `campaigns` (`offer_id`);--> statement-breakpoint
CREATE TABLE `clicks` (
	`id` integer PRIMARY KEY NOT NULL,
	`click_id` text NOT NULL,
	`campaign_id` integer NOT NULL,
	`tiktok_campaign_id` text,
	`tiktok_ad_group_id` text,
	`tiktok_creative_id` text,
	`placement` text,
	`campaign_name` text,
	`ad_group_name` text,
	`creative_name` text,
	`ip_address` text,
	`user_agent` text,
	`clicked_at` integer NOT NULL,
	`exited_at` integer,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `clicks_click_id_unique` ON `clicks` (`click_id`);--> statement-breakpoint
CREATE INDEX `clicks_clicked_at_idx` ON `clicks` (`clicked_at`);--> statement-breakpoint
CREATE INDEX `clicks_campaign_clicked_at_idx` ON `clicks` (`campaign_id`,`clicked_at`);--> statement-breakpoint
CREATE TABLE `domains` (
	`id` integer PRIMARY KEY NOT NULL,
	`domain` text NOT NULL,
	`subdomain` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`purchase_order_id` text,
	`purchase_amount_cents` integer,
	`cloudflare_zone_id` text,
	`cloudflare_record_id` text,
	`nameservers` text,
	`error_message` text,
	`purchased_at` integer,
	`configured_at` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `domains_domain_unique` ON `domains` (`domain`);--> statement-breakpoint
CREATE TABLE `generated_websites` (
	`id` integer PRIMARY KEY NOT NULL,
	`campaign_id` integer NOT NULL,
	`store_name` text NOT NULL,
	`store_type` text NOT NULL,
	`html_content` text NOT NULL,
	`generated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `generated_websites_campaign_id_unique` ON `generated_websites` (`campaign_id`);--> statement-breakpoint
CREATE TABLE `invoices` (
	`id` integer PRIMARY KEY NOT NULL,
	`media_buyer` text NOT NULL,
	`amount_paid_cents` integer NOT NULL,
	`revenue_share_bps` integer NOT NULL,
	`profit_cents` integer NOT NULL,
	`invoice_date` text NOT NULL,
	`notes` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `invoices_date_idx` ON `invoices` (`invoice_date`);--> statement-breakpoint
CREATE TABLE `lander_clicks` (
	`id` integer PRIMARY KEY NOT NULL,
	`click_id` text NOT NULL,
	`offer_id` integer NOT NULL,
	`ip_address` text,
	`user_agent` text,
	`clicked_at` integer NOT NULL,
	FOREIGN KEY (`click_id`) REFERENCES `clicks`(`click_id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`offer_id`) REFERENCES `offers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `lander_clicks_click_idx` ON `lander_clicks` (`click_id`);--> statement-breakpoint
CREATE INDEX `lander_clicks_offer_idx` ON `lander_clicks` (`offer_id`);--> statement-breakpoint
CREATE TABLE `landers` (
	`id` integer PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`url` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `login_attempts` (
	`id` integer PRIMARY KEY NOT NULL,
	`username` text NOT NULL,
	`ip` text NOT NULL,
	`attempted_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `login_attempts_username_idx` ON `login_attempts` (`username`,`attempted_at`);--> statement-breakpoint
CREATE INDEX `login_attempts_ip_idx` ON `login_attempts` (`ip`,`attempted_at`);--> statement-breakpoint
CREATE TABLE `offers` (
	`id` integer PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`url` text NOT NULL,
	`utm_template` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`expires_at` integer NOT NULL,
	`ip` text,
	`user_agent` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sessions_user_idx` ON `sessions` (`user_id`);--> statement-breakpoint
CREATE INDEX `sessions_expires_idx` ON `sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sparks` (
	`id` integer PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`code` text NOT NULL,
	`spark_id` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sparks_spark_id_unique` ON `sparks` (`spark_id`);--> statement-breakpoint
CREATE TABLE `tiktok_spend` (
	`id` integer PRIMARY KEY NOT NULL,
	`date` text NOT NULL,
	`tiktok_campaign_id` text NOT NULL,
	`campaign_name` text DEFAULT '' NOT NULL,
	`spend_cents` integer DEFAULT 0 NOT NULL,
	`impressions` integer DEFAULT 0 NOT NULL,
	`clicks` integer DEFAULT 0 NOT NULL,
	`conversions` integer DEFAULT 0 NOT NULL,
	`synced_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tiktok_spend_date_campaign_unique` ON `tiktok_spend` (`date`,`tiktok_campaign_id`);--> statement-breakpoint
CREATE INDEX `tiktok_spend_date_idx` ON `tiktok_spend` (`date`);--> statement-breakpoint
CREATE TABLE `transactions` (
	`id` integer PRIMARY KEY NOT NULL,
	`registered_card_last4` text NOT NULL,
	`funding_source` text,
	`type_of_account` text,
	`transaction_date` text,
	`clear_date` text,
	`type` text,
	`status` text NOT NULL,
	`name_on_card` text,
	`auth_billing_amount_cents` integer,
	`merchant_name` text,
	`merchant_city` text,
	`merchant_state` text,
	`vcn_nickname` text,
	`vcn_last4` text,
	`reference_id` text,
	`dedupe_key` text NOT NULL,
	`uploaded_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_dedupe_key_unique` ON `transactions` (`dedupe_key`);--> statement-breakpoint
CREATE INDEX `transactions_status_idx` ON `transactions` (`status`);--> statement-breakpoint
CREATE INDEX `transactions_vcn_last4_idx` ON `transactions` (`vcn_last4`);--> statement-breakpoint
CREATE INDEX `transactions_vcn_nickname_date_idx` ON `transactions` (`vcn_nickname`,`transaction_date`);--> statement-breakpoint
CREATE INDEX `transactions_date_idx` ON `transactions` (`transaction_date`);--> statement-breakpoint
CREATE TABLE `user_dashboard_preferences` (
	`user_id` text PRIMARY KEY NOT NULL,
	`visible_columns` text DEFAULT '[]' NOT NULL,
	`column_widths` text DEFAULT '{}' NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `user_permissions` (
	`id` integer PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`feature` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `user_permissions_user_feature_unique` ON `user_permissions` (`user_id`,`feature`);--> statement-breakpoint
CREATE TABLE `user_spark_assignments` (
	`id` integer PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`spark_id` integer NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`spark_id`) REFERENCES `sparks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `user_spark_assignments_unique` ON `user_spark_assignments` (`user_id`,`spark_id`);--> statement-breakpoint
CREATE TABLE `user_subid1_assignments` (
	`id` integer PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`subid1` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `user_subid1_assignments_unique` ON `user_subid1_assignments` (`user_id`,`subid1`);--> statement-breakpoint
CREATE TABLE `user_vcn_assignments` (
	`id` integer PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`vcn_nickname` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `user_vcn_assignments_unique` ON `user_vcn_assignments` (`user_id`,`vcn_nickname`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`username` text NOT NULL,
	`password_hash` text NOT NULL,
	`role` text DEFAULT 'user' NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_username_unique` ON `users` (lower("username"));--> statement-breakpoint
CREATE TABLE `verification_codes` (
	`id` integer PRIMARY KEY NOT NULL,
	`code` text NOT NULL,
	`subject` text DEFAULT '' NOT NULL,
	`sender` text DEFAULT '' NOT NULL,
	`message_id` text,
	`received_at` integer NOT NULL,
	`extracted_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `verification_codes_message_id_unique` ON `verification_codes` (`message_id`);--> statement-breakpoint
CREATE INDEX `verification_codes_received_idx` ON `verification_codes` (`received_at`);