// `npm run chaos [-- --help]`: SIGKILLs `wrangler dev` in the middle of a bulk feed and of a full feed, restarts it on the same
// persisted state, and reports lost documents, entries still open, and when everything settled after the restart.
// Targets (issue 15): every accepted entry terminal within 60 s of the restart, 0 lost documents, End terminates.
// Settings: CHAOS_DOCS (documents per scenario, default 8000), CHAOS_CHUNK (documents per bulk request, 500),
// CHAOS_SETTLE_SECONDS (how long to wait for recovery, 180).
// Sharded apps: CHAOS_SHARDS=N (default 1) spreads the app over N shards first (a full feed whose End, which swaps the
// shards, is timed), and adds a scenario per fraction of CHAOS_SWAP_KILL_AT (comma-separated, default
// 0.1,0.3,0.5,0.7,0.9): a full feed of the bulk scenario's documents alternately into N / 2 and N shards, the server
// SIGKILLed that fraction of the timed End after End was sent (End unanswered is sent again after the restart, as a
// client would), then checked: documents lost or left over, the top 10 of some queries against an unsharded app fed the
// same documents (statistics exchanged), and, once the server stopped, the live rows every Durable Object stores
// (dropped shards destroyed). Prints its report; CATALOGUE_DIR: the catalogue's directory (default ../shared/data).
// No options but --help.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { APP, TENANT, createSearchApp, searchPath } from './bench/api.mjs';
import { readEnvelopes, readSchema } from './bench/catalogue.mjs';
import { applyMigrations, freePort, startWrangler } from './bench/server.mjs';
import { scriptArgs } from './cli.mjs';

scriptArgs(import.meta.url, 'npm run chaos');

const root = resolve(import.meta.dirname, '..');
const DOCS = Number(process.env.CHAOS_DOCS ?? 8000);
const CHUNK = Number(process.env.CHAOS_CHUNK ?? 500);
const SETTLE_MS = Number(process.env.CHAOS_SETTLE_SECONDS ?? 180) * 1000;
const TARGET_MS = 60_000;
const SHARDS = Number(process.env.CHAOS_SHARDS ?? 1);
const SWAP_KILL_AT = (process.env.CHAOS_SWAP_KILL_AT ?? '0.1,0.3,0.5,0.7,0.9').split(',').map(Number);
/** The unsharded app the sharded one's rankings are compared with. */
const REFERENCE_APP = 'debian-reference';
/** Queries whose top 10 differ when shards score with their own statistics. */
const QUERIES = ['python3', 'lib', 'perl', 'gnome', 'data', 'ada', 'font', 'tool', 'c', 'p', 'gnome s', 'libboost', 'ceph', 'vim editor'];

const persistDir = mkdtempSync(join(tmpdir(), 'edge-search-chaos-'));
const rootToken = randomBytes(24).toString('base64url');
const ports = { port: await freePort(), inspectorPort: await freePort() };
let server;
process.on('exit', (code) => {
  // A run that failed shows what the server said last.
  if (code && server) console.error(`--- wrangler output ---\n${server.log().slice(-6_000)}`);
  server?.kill('SIGKILL');
  rmSync(persistDir, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

const start = () => startWrangler({ root, persistDir, ...ports, vars: { ADMIN_TOKEN: rootToken } });
const log = (line) => console.log(`[chaos ${new Date().toISOString().slice(11, 19)}] ${line}`);

/** Counts of the app's feeding entries by state, read from the local D1 file (the API has no listing). */
function entryStates() {
  const result = spawnSync(
    join(root, 'node_modules', '.bin', 'wrangler'),
    [
      'd1',
      'execute',
      'DB',
      '--local',
      '--persist-to',
      persistDir,
      '--json',
      '--command',
      'SELECT state, count(*) AS n FROM feeding_operations GROUP BY state',
    ],
    { cwd: root, encoding: 'utf8', env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true' } },
  );
  if (result.status !== 0) throw new Error(`wrangler d1 execute failed: ${result.stderr}`);
  const rows = JSON.parse(result.stdout)[0].results;
  return Object.fromEntries(rows.map((row) => [row.state, row.n]));
}
const openCount = (states) => (states.CREATED ?? 0) + (states.STARTED ?? 0);
/** Open, or staged by a cycle and not yet FINISHED by its swap. */
const unsettledCount = (states) => openCount(states) + (states.PREPARED ?? 0);

async function api(method, path, token, body) {
  const res = await fetch(server.baseUrl + path, {
    method,
    headers: { 'X-Service-Token': token, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** Every document id in the live index, by paging an empty-query search. */
async function indexedIds() {
  const ids = new Set();
  for (let page = 1; ; page++) {
    const { body } = await api('GET', `/api/v1/search/${TENANT}/${APP}?rows=100&page=${page}`, '');
    for (const doc of body.result.documents) ids.add(doc.id);
    if (page >= body.result.paging.totalPages) return ids;
  }
}

/**
 * Feeds `envelopes` in bulk chunks, two requests in flight, and SIGKILLs the server once `killAfter` documents were
 * answered CREATED. Answers the ids the client was told were accepted and the chunks it must send again.
 */
async function feedUntilKilled(feedingToken, envelopes, killAfter, app = APP) {
  const accepted = new Set();
  const unanswered = [];
  const chunks = [];
  for (let i = 0; i < envelopes.length; i += CHUNK) chunks.push(envelopes.slice(i, i + CHUNK));
  let next = 0;
  let killed = false;
  const worker = async () => {
    while (next < chunks.length) {
      const chunk = chunks[next++];
      if (killed) {
        unanswered.push(chunk);
        continue;
      }
      try {
        const { status, body } = await api('POST', `/api/v1/data/bulk/svc/${TENANT}/${app}`, feedingToken, chunk);
        if (status !== 200) throw new Error(`bulk answered ${status}`);
        for (const doc of body.documents) if (doc.state === 'CREATED') accepted.add(doc.documentId);
      } catch {
        unanswered.push(chunk);
        continue;
      }
      if (!killed && accepted.size >= killAfter) {
        killed = true;
        server.kill('SIGKILL');
        log(`SIGKILL after ${accepted.size} documents were answered CREATED`);
      }
    }
  };
  await Promise.all([worker(), worker()]);
  return { accepted, unanswered };
}

/** Polls until nothing is open (and `done` holds), for at most SETTLE_MS; answers the ms it took or null. */
async function settle(restartedAt, done = async () => true) {
  for (;;) {
    const states = entryStates();
    if (unsettledCount(states) === 0 && (await done())) return { ms: Date.now() - restartedAt, states };
    if (Date.now() - restartedAt > SETTLE_MS) return { ms: null, states };
    await new Promise((r) => setTimeout(r, 2_000));
  }
}

/** Feeds `envelopes` in bulk chunks, two requests in flight, nothing killed; answers the ids answered CREATED. */
async function feedAll(feedingToken, envelopes, app = APP) {
  const { accepted } = await feedUntilKilled(feedingToken, envelopes, Infinity, app);
  return accepted;
}

/** A full feed of `envelopes` into `app`, ended and awaited (no kill); answers how long End took once every entry was staged. */
async function fullFeed(feedingToken, envelopes, app = APP) {
  const started = await api('POST', `/api/v1/data/fullfeed/start/${TENANT}/${app}`, feedingToken, {});
  if (started.status !== 200) throw new Error(`full feed start answered ${started.status}`);
  await feedAll(feedingToken, envelopes, app);
  while (openCount(entryStates()) > 0) await new Promise((r) => setTimeout(r, 500));
  const ending = Date.now();
  await api('POST', `/api/v1/data/fullfeed/end/${TENANT}/${app}`, feedingToken, {});
  const endMs = Date.now() - ending;
  for (;;) {
    const { body } = await api('GET', `/api/v1/data/fullfeed/status/${TENANT}/${app}`, feedingToken);
    if (body.state === 'NONE') return endMs;
    if (body.state === 'FAILED') throw new Error(`full feed of ${app} failed: ${body.reason}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** The queries whose top 10 differ between the app and the unsharded reference. */
async function rankedApart() {
  const apart = [];
  for (const q of QUERIES) {
    const [a, b] = await Promise.all(
      [APP, REFERENCE_APP].map(async (app) =>
        (await api('GET', searchPath({ q, rows: 10 }, app), '')).body.result.documents.map((d) => d.id),
      ),
    );
    if (JSON.stringify(a) !== JSON.stringify(b)) apart.push(q);
  }
  return apart;
}

/** Calls `read` with each Durable Object's SQLite database that has `table` (read while no server runs). */
function eachObjectDatabase(table, read) {
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.sqlite')) {
        // A SIGKILLed workerd may hold its files' locks a moment longer than the request that saw it die.
        const db = new DatabaseSync(path, { readOnly: true, timeout: 10_000 });
        if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table)) read(db);
        db.close();
      }
    }
  };
  walk(join(persistDir, 'v3', 'do'));
}

/** Live documents every Durable Object stores, summed. */
function storedLiveDocuments() {
  let total = 0;
  eachObjectDatabase('documents', (db) => (total += db.prepare('SELECT count(*) AS n FROM documents WHERE payload IS NOT NULL').get().n));
  return total;
}

/**
 * Where a swap stood when the server died, from the shard objects' storage: how many shards are at each layout
 * generation, how many hold a vote, and whether shard 0's follow-up of its commit was still to do.
 */
function swapPhase() {
  const generations = new Map();
  let voted = 0;
  let followUp = false;
  eachObjectDatabase('meta', (db) => {
    const meta = (key) => db.prepare('SELECT value FROM meta WHERE key = ?').get(key)?.value;
    const layout = meta('layout');
    // A shard new to the app holds no layout before it commits, only its vote.
    if (meta('ready')) voted++;
    if (!layout) return;
    const { generation } = JSON.parse(layout);
    generations.set(generation, (generations.get(generation) ?? 0) + 1);
    if (meta('unsettledSwap')) followUp = true;
  });
  const atGeneration = [...generations].sort(([a], [b]) => a - b).map(([generation, n]) => `${n} at ${generation}`);
  return `shards ${atGeneration.join(', ')}; ${voted} voted${followUp ? '; follow-up to do' : ''}`;
}

const envelopes = readEnvelopes(root).slice(0, DOCS * 2);
const schema = readSchema(root);
applyMigrations(root, persistDir);
server = await start();
const { feedingToken } = await createSearchApp(server.baseUrl, rootToken, schema, { settings: { shards: SHARDS } });
const report = [];
let swapMs;
if (SHARDS > 1) {
  await createSearchApp(server.baseUrl, rootToken, schema, { app: REFERENCE_APP });
  await fullFeed(feedingToken, envelopes.slice(0, DOCS), REFERENCE_APP);
  // The shard count takes effect at a full feed's swap.
  swapMs = await fullFeed(feedingToken, envelopes.slice(0, DOCS));
  log(`unsharded reference app fed ${DOCS} documents; the app's full feed into ${SHARDS} shards ended in ${swapMs} ms`);
}

// ---------------------------------------------------------------- bulk feed
{
  log(`bulk feed of ${DOCS} documents, SIGKILL half-way`);
  const bulkDocs = envelopes.slice(0, DOCS);
  const { accepted, unanswered } = await feedUntilKilled(feedingToken, bulkDocs, DOCS / 2);
  server = await start();
  const restartedAt = Date.now();
  log(`restarted; ${accepted.size} documents accepted before the kill, ${unanswered.length} chunks unanswered (not re-sent)`);
  const { ms, states } = await settle(restartedAt);
  const ids = await indexedIds();
  const lost = [...accepted].filter((id) => !ids.has(id));
  report.push({ scenario: 'bulk', accepted: accepted.size, lost: lost.length, openAfter: unsettledCount(states), settledMs: ms, states });
}

// ---------------------------------------------------------------- full feed
{
  log(`full feed of ${DOCS} other documents, SIGKILL half-way, then the client re-sends what went unanswered and ends`);
  const fullDocs = envelopes.slice(DOCS, DOCS * 2);
  const started = await api('POST', `/api/v1/data/fullfeed/start/${TENANT}/${APP}`, feedingToken, {});
  if (started.status !== 200) throw new Error(`full feed start answered ${started.status}`);
  const { accepted, unanswered } = await feedUntilKilled(feedingToken, fullDocs, DOCS / 2);
  server = await start();
  const restartedAt = Date.now();
  log(`restarted; ${accepted.size} accepted before the kill; re-sending ${unanswered.length} chunks`);
  for (const chunk of unanswered) {
    const { body } = await api('POST', `/api/v1/data/bulk/svc/${TENANT}/${APP}`, feedingToken, chunk);
    for (const doc of body.documents) if (doc.state === 'CREATED') accepted.add(doc.documentId);
  }
  const end = await api('POST', `/api/v1/data/fullfeed/end/${TENANT}/${APP}`, feedingToken, {});
  log(`End answered ${end.status} (${end.body?.state})`);
  let finalState;
  const { ms, states } = await settle(restartedAt, async () => {
    finalState = (await api('GET', `/api/v1/data/fullfeed/status/${TENANT}/${APP}`, feedingToken)).body;
    return finalState.state === 'NONE' || finalState.state === 'FAILED';
  });
  const ids = await indexedIds();
  const lost = [...accepted].filter((id) => !ids.has(id));
  const leftover = [...ids].filter((id) => !accepted.has(id));
  report.push({
    scenario: 'full feed',
    accepted: accepted.size,
    lost: lost.length,
    openAfter: unsettledCount(states),
    settledMs: ms,
    endState: finalState?.state,
    notInFeedButLive: leftover.length,
    states,
  });
}

// ---------------------------------------------------------------- full-feed swaps of a sharded app
for (const [round, fraction] of (SHARDS > 1 ? SWAP_KILL_AT : []).entries()) {
  const killMs = Math.round(fraction * swapMs);
  const shards = round % 2 === 0 ? Math.max(1, Math.floor(SHARDS / 2)) : SHARDS;
  log(`full feed of ${DOCS} documents into ${shards} shards, SIGKILL ${killMs} ms after End`);
  const swapDocs = envelopes.slice(0, DOCS);
  await api('PUT', `/api/v1/admin/searchapps/${TENANT}/${APP}`, rootToken, { shards });
  const started = await api('POST', `/api/v1/data/fullfeed/start/${TENANT}/${APP}`, feedingToken, {});
  if (started.status !== 200) throw new Error(`full feed start answered ${started.status}`);
  const accepted = await feedAll(feedingToken, swapDocs);
  while (openCount(entryStates()) > 0) await new Promise((r) => setTimeout(r, 500));
  // End swaps the shards itself (every entry is staged): the kill lands somewhere in the swap, or after it.
  const ending = api('POST', `/api/v1/data/fullfeed/end/${TENANT}/${APP}`, feedingToken, {}).catch(() => ({ status: 'killed' }));
  await new Promise((r) => setTimeout(r, killMs));
  server.kill('SIGKILL');
  const end = await ending;
  const phase = swapPhase();
  server = await start();
  const restartedAt = Date.now();
  const atRestart = (await api('GET', `/api/v1/data/fullfeed/status/${TENANT}/${APP}`, feedingToken)).body;
  log(`restarted; End answered ${end.status} before the kill, status ${atRestart.state} after it; killed with ${phase}`);
  // End never reached the server: the client sends it again.
  if (atRestart.state === 'ACTIVE') await api('POST', `/api/v1/data/fullfeed/end/${TENANT}/${APP}`, feedingToken, {});
  let finalState;
  const { ms, states } = await settle(restartedAt, async () => {
    finalState = (await api('GET', `/api/v1/data/fullfeed/status/${TENANT}/${APP}`, feedingToken)).body;
    return finalState.state === 'NONE' || finalState.state === 'FAILED';
  });
  // What follows the swap's last commit (a recovery check's, when the kill came first) may end after the entries settle.
  let apart = await rankedApart();
  for (let tries = 0; apart.length && tries < 30; tries++) {
    await new Promise((r) => setTimeout(r, 1_000));
    apart = await rankedApart();
  }
  const ids = await indexedIds();
  report.push({
    scenario: `swap ${killMs} ms`,
    accepted: accepted.size,
    lost: [...accepted].filter((id) => !ids.has(id)).length,
    openAfter: unsettledCount(states),
    settledMs: ms,
    endState: `${finalState?.state} (End ${end.status}, ${atRestart.state} at restart; killed with ${phase})`,
    notInFeedButLive: [...ids].filter((id) => !accepted.has(id)).length,
    rankedApart: apart,
    states,
  });
}

await server.stop();
server = undefined;
// The app's live documents and the reference's: more means a shard a layout dropped kept its documents.
const stored = SHARDS > 1 ? storedLiveDocuments() : undefined;
const ok = (r) => r.lost === 0 && r.openAfter === 0 && r.settledMs !== null && !r.notInFeedButLive && !r.rankedApart?.length;
console.log('\nscenario        | accepted | lost | open after | settled after restart | target (60 s, 0 lost) | ranked apart | end state');
for (const r of report) {
  const met = ok(r) && r.settledMs <= TARGET_MS;
  const settled = r.settledMs === null ? `not within ${SETTLE_MS / 1000} s` : `${(r.settledMs / 1000).toFixed(1)} s`;
  const apart = r.rankedApart ? `${r.rankedApart.length} of ${QUERIES.length}` : '-';
  console.log(
    `${r.scenario.padEnd(15)} | ${String(r.accepted).padStart(8)} | ${String(r.lost).padStart(4)} | ${String(r.openAfter).padStart(10)} | ${settled.padStart(21)} | ${(met ? 'met' : 'NOT met').padStart(21)} | ${apart.padStart(12)} | ${r.endState ?? '-'}`,
  );
}
console.log(`\nentry states: ${report.map((r) => `${r.scenario}: ${JSON.stringify(r.states)}`).join('; ')}`);
for (const r of report.filter((r) => r.notInFeedButLive))
  console.log(`${r.scenario}: ${r.notInFeedButLive} live documents were not in the feed`);
for (const r of report.filter((r) => r.rankedApart?.length))
  console.log(`${r.scenario}: ranked apart from one index: ${r.rankedApart.join(', ')}`);
if (stored !== undefined)
  console.log(`live document rows stored by every Durable Object: ${stored} (the app's and the reference's: ${DOCS * 2})`);
process.exit(report.every(ok) && (stored === undefined || stored === DOCS * 2) ? 0 : 1);
