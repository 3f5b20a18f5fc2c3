// Types of server.mjs for the TypeScript callers (the browser tests' globalSetup).
export function freePort(): Promise<number>;
export function applyMigrations(root: string, persistDir: string): void;
export function startWrangler(options: {
  root: string;
  persistDir: string;
  port: number;
  inspectorPort: number;
  vars: Record<string, string>;
  timeoutMs?: number;
}): Promise<{ baseUrl: string; stop(): Promise<void>; kill(signal?: string): void; log(): string }>;
