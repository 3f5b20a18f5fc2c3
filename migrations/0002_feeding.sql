CREATE TABLE `feeding_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`app_id` integer NOT NULL,
	`state` text DEFAULT 'CREATED' NOT NULL,
	`processed` integer DEFAULT 0 NOT NULL,
	`total` integer,
	`error` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`finished_at` text,
	FOREIGN KEY (`app_id`) REFERENCES `search_apps`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `feeding_operations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app_id` integer NOT NULL,
	`document_id` text NOT NULL,
	`operation` text NOT NULL,
	`state` text DEFAULT 'CREATED' NOT NULL,
	`type` text NOT NULL,
	`cycle_id` integer,
	`error` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`finished_at` text,
	FOREIGN KEY (`app_id`) REFERENCES `search_apps`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `feeding_operations_app_cycle` ON `feeding_operations` (`app_id`,`cycle_id`,`state`);