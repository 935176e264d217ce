ALTER TABLE `campaigns` ADD `media_buyer` text;--> statement-breakpoint
-- Hand-corrected: drizzle-kit wrote this ADD without the schema's ON DELETE rule, which would make
-- deleting a spark that a campaign uses fail on the foreign key. The campaign keeps running without
-- its spark instead, as it does without a deleted offer (docs/product-rules.md "Offer templates and attribution").
ALTER TABLE `campaigns` ADD `spark_id` integer REFERENCES sparks(id) ON UPDATE no action ON DELETE set null;--> statement-breakpoint
CREATE INDEX `campaigns_spark_idx` ON `campaigns` (`spark_id`);--> statement-breakpoint
-- Hand-written: offers still on the old default template (click id in sub1) never reached a
-- campaign in the Stats, which read CAKE's sub2 as the click id. They move to the new default, so
-- a team's revenue starts landing without anyone editing each offer (docs/product-rules.md "Offer templates and attribution").
-- Any other template is the admin's own and is left as it is (Offer Config flags it if it cannot be attributed).
UPDATE `offers` SET `utm_template` = 'sub1={mediaBuyer}&sub2={clickId}&sub3={spark}&sub4={adGroup}&sub5={creative}'
WHERE `utm_template` = 'sub1={clickId}&sub2={campaign}&sub3={adGroup}&sub4={creative}&sub5={placement}';
