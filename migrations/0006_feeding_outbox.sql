ALTER TABLE `feeding_operations` ADD `payload` text;--> statement-breakpoint
ALTER TABLE `feeding_operations` ADD `sent_at` text;--> statement-breakpoint
ALTER TABLE `feeding_operations` ADD `redrives` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `feeding_operations_open` ON `feeding_operations` (`app_id`,`state`,`sent_at`);