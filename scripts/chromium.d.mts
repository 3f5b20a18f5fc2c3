// Types of chromium.mjs for the TypeScript callers (the browser tests).
export const CHROMIUM_PATH: string;
export const CHROMIUM_ARGS: string[];
