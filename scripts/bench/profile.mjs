// Step 3b: where the CPU goes on each HTTP path (issue 16's "profile the whole path"). While autocannon runs a
// scenario, a V8 CPU profile of `wrangler dev`'s runtime (the worker and the Durable Object share its isolate) is
// taken through the inspector, and each sample is attributed through the bundle's source map to a part of the
// path: routing and middleware, D1 metadata, the Durable Object, its SQLite storage (document fetch), the engine…
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, join } from 'node:path';

/** wrangler's inspector proxy accepts connections from DevTools' origin only. */
const DEVTOOLS_ORIGIN = 'https://devtools.devprod.cloudflare.dev';
/** Microseconds between samples: fine enough for sub-millisecond requests, light enough not to change the picture. */
const SAMPLING_INTERVAL_US = 250;

/** Parts of the path, first match wins: [label, test on the source path]. */
const PARTS = [
  ['engine: facets', (s) => s.includes('src/search/engine/facets')],
  ['engine: other', (s) => s.includes('src/search/engine/')],
  ['DO storage (SQLite: documents, meta)', (s) => s.includes('src/search/app-storage')],
  [
    'Durable Object (answers, JSON)',
    (s) => s.includes('src/search/search-app-object') || s.includes('src/search/app-object/') || s.includes('src/search/answers'),
  ],
  ['edge cache', (s) => s.includes('src/search/edge-cache')],
  ['routes, middleware, validation', (s) => /src\/(http|validation|contract|rate-limit|errors)/.test(s)],
  ['search app client (RPC stubs)', (s) => s.includes('src/search/search-app-client')],
  ['hybrid search, embedding', (s) => s.includes('src/search/hybrid') || s.includes('src/search/embedding')],
  ['search app lookup (D1 row, memo)', (s) => s.includes('src/db/')],
  ['other src/', (s) => s.includes('src/')],
  ['Hono', (s) => s.includes('node_modules/hono')],
  ['drizzle (D1 metadata)', (s) => s.includes('node_modules/drizzle-orm')],
  ['zod', (s) => s.includes('node_modules/zod')],
  ['wrangler and runtime glue', () => true],
];
const RUNTIME = { '(idle)': 'idle', '(program)': 'runtime (not JS)', '(garbage collector)': 'garbage collector' };
/** The part of a major (mark-compact) collection's pause, told apart from the scavenges around it. */
const MAJOR_PAUSE = 'garbage collector: a major collection';
/** A drop of the V8 heap's used size below this share of the reading before: a major collection (a scavenge frees less). */
const MAJOR_DROP = 0.5;
/** How often the heap's used size is read during a profiled run. */
const HEAP_POLL_MS = 100;

export async function openInspector(inspectorPort) {
  const [target] = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json();
  const socket = new WebSocket(target.webSocketDebuggerUrl, { headers: { Origin: DEVTOOLS_ORIGIN } });
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error(`the inspector on port ${inspectorPort} refused the connection`));
  });
  let lastId = 0;
  const pending = new Map();
  // The proxy may answer a command by echoing it (no `result`): the first message with the command's id settles it.
  socket.onmessage = ({ data }) => {
    const message = JSON.parse(data);
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  };
  // A closed inspector settles every open command: a promise left pending would let Node exit with no report.
  socket.onclose = () => {
    for (const settle of pending.values()) settle({ error: { message: 'the inspector closed the connection' } });
    pending.clear();
  };
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = ++lastId;
      pending.set(id, (message) =>
        message.error ? reject(new Error(`${method}: ${message.error.message}`)) : resolve(message.result ?? {}),
      );
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => socket.close() };
}

/** The source map of the bundle `wrangler dev` runs now (its newest build under .wrangler/tmp). */
function bundleSourceMap(root) {
  const tmp = join(root, '.wrangler', 'tmp');
  const builds = readdirSync(tmp)
    .filter((name) => name.startsWith('dev-') && existsSync(join(tmp, name, 'index.js.map')))
    .map((name) => join(tmp, name, 'index.js.map'))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (!builds.length) throw new Error('no source map of the dev bundle under .wrangler/tmp');
  return new SourceMap(JSON.parse(readFileSync(builds[0], 'utf8')));
}

/**
 * The indexes of the samples of the `count` longest runs of consecutive garbage-collector samples: a major collection's
 * pause (0.1-0.3 s on the whole catalogue's heap) outlasts every scavenge (a few ms) of the window it falls in.
 */
function majorPauseSamples(profile, collectorNodes, count) {
  const runs = [];
  let run;
  profile.samples.forEach((id, at) => {
    if (!collectorNodes.has(id)) {
      run = undefined;
      return;
    }
    if (!run) runs.push((run = { samples: [], us: 0 }));
    run.samples.push(at);
    run.us += profile.timeDeltas[at] ?? 0;
  });
  return new Set(
    runs
      .sort((a, b) => b.us - a.us)
      .slice(0, count)
      .flatMap((longest) => longest.samples),
  );
}

/**
 * Share of the samples per part of the path; a native frame (JSON, Response, SQL) counts for the JS that called it.
 * The pauses of `majorCollections` major collections seen in the window are a part of their own.
 */
function attribute(profile, sourceMap, majorCollections = 0) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const partOf = new Map();
  const part = (id) => {
    if (partOf.has(id)) return partOf.get(id);
    const { functionName, url, lineNumber, columnNumber } = nodes.get(id).callFrame;
    let label;
    if (RUNTIME[functionName]) label = RUNTIME[functionName];
    else if (!url) label = parentOf.has(id) ? part(parentOf.get(id)) : 'runtime (not JS)';
    else {
      const source = url === 'index.js' ? (sourceMap.findEntry(lineNumber, columnNumber).originalSource ?? '') : url;
      label = PARTS.find(([, test]) => test(source))[0];
    }
    partOf.set(id, label);
    return label;
  };
  const collectorNodes = new Set(profile.nodes.filter((node) => part(node.id) === RUNTIME['(garbage collector)']).map((node) => node.id));
  const major = majorPauseSamples(profile, collectorNodes, majorCollections);
  const counts = new Map();
  profile.samples.forEach((sample, at) => {
    const label = major.has(at) ? MAJOR_PAUSE : part(sample);
    counts.set(label, (counts.get(label) ?? 0) + 1);
  });
  const busy = profile.samples.length - (counts.get('idle') ?? 0);
  return [...counts]
    .filter(([label]) => label !== 'idle')
    .map(([label, samples]) => ({ label, share: samples / busy }))
    .sort((a, b) => b.share - a.share);
}

/**
 * Runs `runScenario()` while reading the V8 heap's used size every `HEAP_POLL_MS`: answers how many major collections
 * it saw (drops below `MAJOR_DROP` of the reading before). One falls every several thousand keyword requests, so in a
 * few seconds' window it lands in one scenario's profile or another's, adding 10-30 % of that window's samples.
 */
async function countMajorCollections(inspector, runScenario) {
  let majors = 0;
  let last;
  let reading = Promise.resolve();
  const read = () =>
    inspector.send('Runtime.getHeapUsage').then(({ usedSize }) => {
      if (last !== undefined && usedSize < last * MAJOR_DROP) majors++;
      last = usedSize;
    });
  const timer = setInterval(() => {
    // A reading lost (the inspector closing under load) only leaves that moment unseen.
    reading = reading.then(read).catch(() => {});
  }, HEAP_POLL_MS);
  try {
    await runScenario();
  } finally {
    clearInterval(timer);
  }
  await reading;
  return majors;
}

/**
 * Profiles `runScenario()` (a load run against the server whose inspector listens on `inspectorPort`): answers the
 * share of busy CPU per part of the path, a major collection's pause apart; with `saveTo`, also writes the raw
 * `.cpuprofile` for DevTools.
 */
export async function profileDuring(root, inspectorPort, runScenario, saveTo) {
  const inspector = await openInspector(inspectorPort);
  try {
    await inspector.send('Profiler.enable');
    await inspector.send('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US });
    await inspector.send('Profiler.start');
    const majorCollections = await countMajorCollections(inspector, runScenario);
    const { profile } = await inspector.send('Profiler.stop');
    if (!profile) throw new Error('the inspector answered Profiler.stop without a profile');
    if (saveTo) {
      mkdirSync(dirname(saveTo), { recursive: true });
      writeFileSync(saveTo, JSON.stringify(profile));
    }
    return attribute(profile, bundleSourceMap(root), majorCollections);
  } finally {
    inspector.close();
  }
}
