// Types of demo-server.mjs for the TypeScript callers (the browser tests' globalSetup).
export function startDemoServer(options: { root: string; tenant?: string; app?: string; localObservability?: boolean }): Promise<{
  baseUrl: string;
  tenant: string;
  app: string;
  documents: number;
  stop(): Promise<void>;
  kill(signal?: string): void;
}>;
