// End to end: the `edge-search` bin as a spawned process against a real `wrangler dev` of this checkout
// (D1, Durable Objects and Queues emulated locally, nothing mocked). Run by `npm test` after the Workers tests.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { applyMigrations, freePort, startWrangler } from '../../../scripts/bench/server.mjs';
import { request } from '../../../scripts/seed.mjs';

const root = resolve(import.meta.dirname, '../../..');
const bin = join(root, 'packages/cli/bin/edge-search.mjs');
const ROOT_TOKEN = 'cli-test-root-token';
const work = mkdtempSync(join(tmpdir(), 'edge-search-cli-'));
const sample = readFileSync(join(root, 'test/fixtures/debian-sample.ndjson'), 'utf8').split('\n').filter(Boolean);

let server;
let env;

/** Runs the CLI as `npx edge-search` would; answers its exit code and output. */
function cli(args, extraEnv = {}) {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, env: { ...process.env, ...env, ...extraEnv } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => done({ code, stdout, stderr }));
  });
}

before(async () => {
  const persistDir = join(work, 'state');
  applyMigrations(root, persistDir);
  server = await startWrangler({
    root,
    persistDir,
    port: await freePort(),
    inspectorPort: await freePort(),
    vars: { ADMIN_TOKEN: ROOT_TOKEN, AUTH_TOKEN: 'cli-test-agent-token' },
  });
  const base = server.baseUrl;
  await request(base, 'PUT', '/api/v1/admin/tenants/acme', ROOT_TOKEN, {});
  await request(base, 'PUT', '/api/v1/admin/searchapps/acme/packages', ROOT_TOKEN, {});
  const feeding = await request(base, 'POST', '/api/v1/admin/tokens/acme', ROOT_TOKEN, { kind: 'feeding', permission: 'WRITE' });
  const admin = await request(base, 'POST', '/api/v1/admin/tokens/acme', ROOT_TOKEN, { kind: 'admin', permission: 'WRITE' });
  env = {
    EDGE_SEARCH_URL: base,
    EDGE_SEARCH_TENANT: 'acme',
    EDGE_SEARCH_APP: 'packages',
    EDGE_SEARCH_TOKEN: feeding.token,
    EDGE_SEARCH_ADMIN_TOKEN: admin.token,
    EDGE_SEARCH_ROOT_TOKEN: ROOT_TOKEN,
  };
});

after(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('edge-search CLI', () => {
  it('puts the schema, full-feeds a gzipped NDJSON catalogue with --wait, and searches it', async () => {
    let run = await cli(['schema', 'put', 'test/fixtures/debian-packages.schema.json']);
    assert.equal(run.code, 0, run.stderr);
    run = await cli(['schema', 'get']);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(JSON.parse(run.stdout).fields.some((field) => field.code === 'name'));

    const file = join(work, 'catalogue.ndjson.gz');
    writeFileSync(file, gzipSync(sample.join('\n') + '\n'));
    run = await cli(['feed', file, '--full', '--wait', '--concurrency', '3', '--chunk-size', '500']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, new RegExp(`Sent ${sample.length} entries in [\\d.]+ s: ${sample.length} queued, 0 rejected`));
    assert.match(run.stdout, new RegExp(`Full feed swapped: ${sample.length} documents live`));
    assert.match(run.stdout, /Indexed: FINISHED \d+/);

    run = await cli(['status']);
    assert.match(run.stdout, new RegExp(`Live documents: ${sample.length}`));
    const first = JSON.parse(sample[0]);
    run = await cli(['search', String(first.payload.name), '--rows', '3']);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(JSON.parse(run.stdout).documents.some((document) => document.id === first.header.id));
  });

  it('exits 1 and names the rejected entries with their reasons', async () => {
    const file = join(work, 'bad.ndjson');
    const bad = JSON.stringify({ header: { id: 'bad-1', action: 'update' }, payload: { name: 3 } });
    writeFileSync(file, [sample[0], bad, '{"header": oops'].join('\n'));
    const run = await cli(['feed', file, '--wait']);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /1 queued, 2 rejected/);
    assert.match(run.stdout, /rejected entry 2 \(bad-1\): payload\.name: expected string or array, received number/);
    assert.match(run.stdout, /rejected entry 3: entry 3 is not valid JSON/);
  });

  it('cancels a full feed with rejected entries unless --keep-going, leaving the live index as it was', async () => {
    const file = join(work, 'partial.ndjson');
    writeFileSync(file, [sample[1], JSON.stringify({ header: { id: 'bad-2', action: 'update' }, payload: { nope: 1 } })].join('\n'));
    const run = await cli(['feed', file, '--full']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /the full feed was cancelled and the live index is unchanged/);
    const status = await cli(['status']);
    assert.match(status.stdout, /Full feed: NONE/);
    assert.match(status.stdout, new RegExp(`Live documents: ${sample.length}`));
  });

  it('lists and revokes tokens and lists search apps with the root token; answers 2 with the reason on a request error', async () => {
    let run = await cli(['tokens', 'list']);
    const tokens = JSON.parse(run.stdout);
    assert.equal(tokens.length, 2);
    assert.ok(tokens.every((token) => token.lastUsedAt && !('token' in token)));
    run = await cli(['tokens', 'create', '--kind', 'feeding', '--permission', 'READ', '--name', 'ci']);
    const created = JSON.parse(run.stdout);
    run = await cli(['tokens', 'revoke', created.id]);
    assert.equal(run.code, 0, run.stderr);
    run = await cli(['apps', 'list']);
    assert.deepEqual(
      JSON.parse(run.stdout).map((app) => app.code),
      ['packages'],
    );
    run = await cli(['status'], { EDGE_SEARCH_TOKEN: ROOT_TOKEN });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /401 Missing or invalid token: this endpoint needs a tenant feeding token/);
  });
});
