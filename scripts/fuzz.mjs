// `npm run fuzz [-- --help]`: randomized bad requests against a running service (`npm run dev`), made by the arbitraries of the
// fuzz test (test/robustness/bad-requests.ts): reports the answers by status, every 5xx or odd error body, and whether
// the guard tenant's documents came out unchanged. Targets (issue 15): 0 answers 5xx, 0 lost or changed documents.
// Settings: FUZZ_URL (default http://127.0.0.1:$PORT, PORT default 8787), FUZZ_RUNS (10000), FUZZ_SEED (random,
// printed), FUZZ_CONCURRENCY (4); the root and agent tokens come from ADMIN_TOKEN/AUTH_TOKEN or .dev.vars.
// The agents' model is the OpenAI-compatible stand-in of the tests (test/agent/openai-server.ts), started here.
// Prints its report, writes nothing. No options but --help.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import fc from 'fast-check';
import { badRequest, createWorld, guardDocuments, problemWith, requestInit } from '../test/robustness/bad-requests.ts';
import { scriptArgs } from './cli.mjs';
import { request } from './seed.mjs';

scriptArgs(import.meta.url, 'npm run fuzz');

const root = resolve(import.meta.dirname, '..');
const BASE_URL = process.env.FUZZ_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8787}`;
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? randomBytes(4).readUInt32BE());
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 4);

const devVars = existsSync(join(root, '.dev.vars'))
  ? Object.fromEntries(
      readFileSync(join(root, '.dev.vars'), 'utf8')
        .split('\n')
        .filter((line) => line.includes('='))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    )
  : {};
const rootToken = process.env.ADMIN_TOKEN ?? devVars.ADMIN_TOKEN;
const agentToken = process.env.AUTH_TOKEN ?? devVars.AUTH_TOKEN;
if (!rootToken || !agentToken) throw new Error('ADMIN_TOKEN and AUTH_TOKEN are needed (environment or .dev.vars)');

/** The model stand-in, bundled for Node (it imports TypeScript modules without extensions). */
async function startModelStandIn() {
  const dir = mkdtempSync(join(tmpdir(), 'edge-search-fuzz-'));
  const outfile = join(dir, 'openai-server.mjs');
  await build({
    entryPoints: [join(root, 'test/agent/openai-server.ts')],
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile,
    logLevel: 'warning',
  });
  const { default: setup } = await import(outfile);
  let port;
  const teardown = await setup({ provide: (_key, value) => (port = value) });
  rmSync(dir, { recursive: true, force: true });
  return { port, teardown };
}

async function waitFor(read, done, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not reached; last value: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const log = (line) => console.log(`[fuzz ${new Date().toISOString().slice(11, 19)}] ${line}`);
const standIn = await startModelStandIn();
const call = (method, path, token, body) => request(BASE_URL, method, path, token, body);
let unique = 0;
const setup = {
  call,
  rootToken,
  agentToken,
  schema: JSON.parse(readFileSync(join(root, 'test/fixtures/debian-packages.schema.json'), 'utf8')),
  documents: readFileSync(join(root, 'test/fixtures/debian-sample.ndjson'), 'utf8').split('\n').slice(0, 5).map(JSON.parse),
  openAiBaseUrl: `http://127.0.0.1:${standIn.port}/t/fuzz/v1`,
  smtpPort: 9,
  unique: (prefix) => `fuzz-${prefix}-${Date.now().toString(36)}-${++unique}`,
  waitFor,
};
const world = await createWorld(setup, (await call('GET', '/openapi.json')).paths);
const before = await guardDocuments(setup, world.guard);
log(`${BASE_URL}: ${RUNS} requests, seed ${SEED}, guard tenant ${world.guard.tenant} with ${before.ids.length} documents`);

const requests = fc.sample(badRequest(world), { seed: SEED, numRuns: RUNS });
const byStatus = new Map();
const problems = [];
let failedToSend = 0;
let next = 0;
let answeredSoFar = 0;
const started = Date.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < requests.length) {
      const fuzzRequest = requests[next++];
      let response;
      try {
        response = await fetch(BASE_URL + fuzzRequest.path, requestInit(fuzzRequest));
      } catch {
        failedToSend++; // refused by Node's fetch before it left (a header it will not send), not an answer
        continue;
      }
      byStatus.set(response.status, (byStatus.get(response.status) ?? 0) + 1);
      const problem = await problemWith(fuzzRequest, response);
      if (problem) problems.push(problem);
      if (++answeredSoFar % 1000 === 0) log(`${answeredSoFar} answered`);
    }
  }),
);
const seconds = (Date.now() - started) / 1000;
const after = await guardDocuments(setup, world.guard);
const changed = JSON.stringify(after) !== JSON.stringify(before);
await standIn.teardown();

const answered = [...byStatus.values()].reduce((a, b) => a + b, 0);
const fiveXx = [...byStatus].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
console.log(`\n${answered} answers in ${seconds.toFixed(0)} s (${failedToSend} not sendable by Node's fetch), seed ${SEED}`);
console.log(
  `by status: ${[...byStatus]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ')}`,
);
console.log(`5xx: ${fiveXx}; problems (5xx, odd error bodies, accepted broken documents): ${problems.length}`);
for (const problem of problems.slice(0, 20)) console.log(`  ${problem}`);
console.log(`guard documents: ${before.ids.length} before, ${after.ids.length} after, ${changed ? 'CHANGED' : 'unchanged'}`);
process.exit(problems.length || changed ? 1 : 0);
