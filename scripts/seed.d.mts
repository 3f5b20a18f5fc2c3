// Types of seed.mjs for the TypeScript callers (the browser tests' globalSetup).
export function waitUntilUp(baseUrl: string, timeoutMs?: number): Promise<void>;
export function seedDemo(
  baseUrl: string,
  adminToken: string,
  options?: { tenant?: string; app?: string; seedFile?: string },
): Promise<{ tenant: string; app: string; adminToken: string; feedingToken: string; lines: string[] }>;
export const DEMO_SAMPLE: URL;
