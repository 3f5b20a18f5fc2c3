CREATE TABLE `api_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_code` text NOT NULL,
	`kind` text NOT NULL,
	`permission` text NOT NULL,
	`name` text,
	`secret_hash` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`tenant_code`) REFERENCES `tenants`(`code`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `api_tokens_tenant` ON `api_tokens` (`tenant_code`);--> statement-breakpoint
CREATE TABLE `search_apps` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_code` text NOT NULL,
	`code` text NOT NULL,
	`name` text NOT NULL,
	`fields` text DEFAULT '[]' NOT NULL,
	`sorts` text DEFAULT '[]' NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`tenant_code`) REFERENCES `tenants`(`code`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `search_apps_tenant_code` ON `search_apps` (`tenant_code`,`code`);--> statement-breakpoint
CREATE TABLE `tenants` (
	`code` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL
);
