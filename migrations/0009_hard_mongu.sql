ALTER TABLE `agents` ADD `shards` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `email_configs` ADD `shards` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `search_apps` ADD `shards` integer DEFAULT 1 NOT NULL;