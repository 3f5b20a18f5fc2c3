import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig, defineProject } from 'vitest/config';

/** Every test but the browser ones, in the Workers runtime against real D1, Durable Objects and Queues. */
const workers = defineProject({
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
          // Shard 2 of this one app refuses to prepare swaps (test/search/shards.test.ts).
          TEST_REFUSE_SWAP: 'swap-refusal/catalog#2,reshard-refusal/catalog#2',
        },
        // The queues of wrangler.toml with no batch wait: tests await each message instead of a one-second timeout.
        queueConsumers: {
          feeding: { maxBatchSize: 20, maxBatchTimeout: 0, maxRetries: 5, deadLetterQueue: 'feeding-dlq' },
          'feeding-dlq': { maxBatchSize: 20, maxBatchTimeout: 0 },
          email: { maxBatchSize: 10, maxBatchTimeout: 0, maxRetries: 5, deadLetterQueue: 'email-dlq' },
          'email-dlq': { maxBatchSize: 10, maxBatchTimeout: 0 },
        },
        // The rate-limit tiers of wrangler.toml, but `standard` (every configuration's default) out of reach, so only
        // test/robustness/rate-limits.test.ts, which picks `low`, meets a limit.
        ratelimits: {
          RATE_LIMIT_LOW: { namespace_id: '1501', simple: { limit: 10, period: 10 } },
          RATE_LIMIT_STANDARD: { namespace_id: '1502', simple: { limit: 1_000_000, period: 10 } },
          RATE_LIMIT_HIGH: { namespace_id: '1503', simple: { limit: 1_000_000, period: 10 } },
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
    name: 'workers',
    include: ['test/**/*.test.ts'],
    exclude: ['test/browser/**', 'test/scripts/**'],
    globalSetup: ['./test/email/stand-ins.ts', './test/agent/openai-server.ts'],
    setupFiles: ['./test/apply-migrations.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

/** The search page in real Chromium, in Node, against a real `wrangler dev` seeded with the demo catalogue. */
const browser = defineProject({
  test: {
    name: 'browser',
    include: ['test/browser/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['./test/browser/dev-server.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The page writes the URL 400 ms after a change (InstantSearch's history router) and answers over HTTP.
    expect: { poll: { timeout: 10_000 } },
  },
});

/** The scripts' command line (scripts/cli.mjs), each script spawned in Node. */
const scripts = defineProject({
  test: { name: 'scripts', include: ['test/scripts/**/*.test.ts'], environment: 'node', testTimeout: 30_000 },
});

export default defineConfig({ test: { projects: [workers, browser, scripts] } });
