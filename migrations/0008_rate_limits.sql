ALTER TABLE `agents` ADD `rate_limit` text DEFAULT 'standard' NOT NULL;--> statement-breakpoint
ALTER TABLE `email_configs` ADD `rate_limit` text DEFAULT 'standard' NOT NULL;--> statement-breakpoint
ALTER TABLE `search_apps` ADD `rate_limit` text DEFAULT 'standard' NOT NULL;