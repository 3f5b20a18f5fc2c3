ALTER TABLE `search_apps` ADD `embedder` text;--> statement-breakpoint
ALTER TABLE `search_apps` ADD `default_semantic_ratio` real DEFAULT 0.5 NOT NULL;