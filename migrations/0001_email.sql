CREATE TABLE `email_configs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_code` text NOT NULL,
	`code` text NOT NULL,
	`from` text,
	`subject` text,
	`html` text,
	`text` text,
	`variables` text DEFAULT '{}' NOT NULL,
	`provider` text,
	`security` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`tenant_code`) REFERENCES `tenants`(`code`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_configs_tenant_code` ON `email_configs` (`tenant_code`,`code`);--> statement-breakpoint
CREATE TABLE `email_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`config_id` integer NOT NULL,
	`target` text NOT NULL,
	`variables` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`error` text,
	`sent_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`config_id`) REFERENCES `email_configs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `email_deliveries_config` ON `email_deliveries` (`config_id`,`created_at`);