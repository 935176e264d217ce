CREATE TABLE `retired_ids` (
	`table_name` text PRIMARY KEY NOT NULL,
	`last_id` integer NOT NULL
);
--> statement-breakpoint
-- Every deleted campaign's id, its lander's cascade included, so no new campaign takes it (db/schema.ts retiredIds).
CREATE TRIGGER `campaigns_retire_id` AFTER DELETE ON `campaigns` BEGIN
	INSERT INTO `retired_ids` (`table_name`, `last_id`) VALUES ('campaigns', OLD.`id`)
	ON CONFLICT (`table_name`) DO UPDATE SET `last_id` = max(`last_id`, excluded.`last_id`);
END;
--> statement-breakpoint
-- The ids campaigns had before this migration, deleted ones included, as far as the audit log still names them.
INSERT INTO `retired_ids` (`table_name`, `last_id`)
	SELECT 'campaigns', max(CAST(`entity_id` AS INTEGER)) FROM `audit_log` WHERE `entity_kind` = 'campaign' HAVING max(CAST(`entity_id` AS INTEGER)) IS NOT NULL
	ON CONFLICT (`table_name`) DO UPDATE SET `last_id` = max(`last_id`, excluded.`last_id`);
