import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [
    cloudflareTest(async ({ inject }) => ({
      wrangler: { configPath: './wrangler.toml' },
      miniflare: {
        bindings: {
          ADMIN_TOKEN: 'test-admin-token',
          AUTH_TOKEN: 'test-agent-token',
          TEST_MIGRATIONS: await readD1Migrations('./migrations'),
          EMAIL_RETRY_BASE_DELAY_SECONDS: '0',
          // Snapshots never follow on their own: tests run the alarm with runDurableObjectAlarm and assert what it covers.
          SNAPSHOT_DELAY_SECONDS: '86400',
          EMAIL_SMTP_PORT: inject('emailSmtpPort'),
          EMAIL_HTTP_PORT: inject('emailHttpPort'),
          OPENAI_STAND_IN_PORT: inject('openAiStandInPort'),
          EMBEDDING_RETRY_BASE_MS: '1',
        },
        // The queues of wrangler.toml with no batch wait: tests await each message instead of a one-second timeout.
        queueConsumers: {
          feeding: { maxBatchSize: 20, maxBatchTimeout: 0, maxRetries: 5, deadLetterQueue: 'feeding-dlq' },
          'feeding-dlq': { maxBatchSize: 20, maxBatchTimeout: 0 },
          email: { maxBatchSize: 10, maxBatchTimeout: 0, maxRetries: 5, deadLetterQueue: 'email-dlq' },
          'email-dlq': { maxBatchSize: 10, maxBatchTimeout: 0 },
        },
        // Workers AI is remote-only; tests bind AI to a local stand-in entrypoint with the same `run`.
        serviceBindings: { AI: { name: 'workers-ai-stand-in', entrypoint: 'WorkersAiStandIn' } },
        workers: [
          {
            name: 'workers-ai-stand-in',
            modules: true,
            scriptPath: './test/agent/workers-ai-stand-in.js',
            compatibilityDate: '2026-11-01',
            bindings: { OPENAI_STAND_IN_PORT: inject('openAiStandInPort') },
          },
        ],
      },
    })),
  ],
  test: {
    globalSetup: ['./test/email/stand-ins.ts', './test/agent/openai-server.ts'],
    setupFiles: ['./test/apply-migrations.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
