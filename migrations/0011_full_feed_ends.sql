CREATE TABLE `full_feed_ends` (
	`app_id` integer PRIMARY KEY NOT NULL,
	`requested_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`app_id`) REFERENCES `search_apps`(`id`) ON UPDATE no action ON DELETE cascade
);
