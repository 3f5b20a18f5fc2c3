// Step 6: docs/benchmarks.md from the figures of one run, with the targets of issues 7 and 16 and whether each is met.
import { STAGES } from './search-page.mjs';
import { fixed, thousands } from './stats.mjs';

const table = (head, rows) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');

const verdict = (met) => (met === undefined ? 'not measured' : met ? 'met' : '**MISSED**');

/** Each target with the figure it is judged on; `met` undefined when the run could not measure it. */
export function judgeTargets(r) {
  const fedLoad = r.feed ? r.load : undefined;
  const keyword = fedLoad?.find((s) => s.id === 'keyword' && !s.skipped);
  const suggest = fedLoad?.find((s) => s.id === 'suggest' && !s.skipped);
  // A scenario none of whose requests answered within its run has no latency: autocannon reports 0 ms.
  const latency = (scenario, stat, serialStat, limit) =>
    scenario && {
      figure: scenario.total ? withSerial(scenario[stat], scenario[serialStat]) : 'no answer within the run',
      met: scenario.total > 0 && scenario[stat] <= limit,
    };
  const share = (id, minimum) => {
    const scenario = fedLoad?.find((s) => s.id === id && !s.skipped && s.shareOfLimit !== undefined);
    return scenario && { figure: shareCell(scenario), met: scenario.shareOfLimit >= minimum };
  };
  const heaps = r.inProcess?.engine ? [r.inProcess.engine.memoryMB, r.inProcess.engine.loadedMemoryMB] : undefined;
  const vectors = r.inProcess?.vectors;
  const e = r.inProcess?.engine;
  const warm = r.searchPage?.phases.warm;
  const vsOrama = ['keyword', 'filtered', 'browse'].map((type) => ratio(r.inProcess, type, 'Orama 3', 'p50')).filter(Number.isFinite);
  return [
    {
      target: 'search with facets, p50 ≤ 5 ms (HTTP, 32 connections)',
      ...latency(keyword, 'p50', 'serialP50', 5),
    },
    {
      target: 'search with facets, p99 ≤ 25 ms (HTTP, 32 connections)',
      ...latency(keyword, 'p99', 'serialP99', 25),
    },
    {
      target: 'suggest p50 ≤ 3 ms (HTTP, 32 connections)',
      ...latency(suggest, 'p50', 'serialP50', 3),
    },
    { target: 'keyword search + facets ≥ 60 % of the empty route’s req/s (issue 16, uncached)', ...share('keyword', 0.6) },
    { target: 'empty query browsing ≥ 40 % of the empty route’s req/s (issue 16, uncached)', ...share('browse', 0.4) },
    { target: 'repeated queries with the edge cache ≥ 90 % of the empty route’s req/s (issue 16)', ...share('repeated', 0.9) },
    {
      target: 'catalogue searchable ≤ 20 s after the full feed ends',
      figure: r.feed && `${fixed(r.feed.endToSearchableSeconds)} s`,
      met: r.feed && r.feed.endToSearchableSeconds <= 20,
    },
    {
      target: 'first answer after restart ≤ 1 s (whole catalogue persisted)',
      figure: r.cold && `${thousands(r.cold.firstSearchMs)} ms${r.feed ? '' : ' (catalogue not fed)'}`,
      met: r.cold && r.feed ? r.cold.firstSearchMs <= 1000 : undefined,
    },
    {
      target: 'search app heap for the whole catalogue ≤ 100 MB (JS heap + array buffers; built / loaded)',
      figure: heaps && heaps.map((mb) => `${fixed(mb)} MB`).join(' / '),
      met: heaps && heaps.every((mb) => mb <= 100),
    },
    {
      target: 'our engine faster than Orama 3 with facets (p50 ratio < 1 for every faceted query type)',
      figure: vsOrama.length ? vsOrama.map((x) => fixed(x, 2)).join(', ') : undefined,
      met: vsOrama.length === 3 ? vsOrama.every((x) => x < 1) : undefined,
    },
    {
      target: 'keyword index + 384-d vectors of the whole catalogue ≤ 100 MB (issue 12; loaded index + vector index)',
      figure: vectors && e && `${fixed(e.loadedMemoryMB + vectors.memoryMB)} MB (${fixed(e.loadedMemoryMB)} + ${fixed(vectors.memoryMB)})`,
      met: vectors && e && e.loadedMemoryMB + vectors.memoryMB <= 100,
    },
    {
      target: 'vector search recall@10 ≥ 0.95 against exact float32 cosine (issue 12)',
      figure: vectors && fixed(vectors.recallAt10, 3),
      met: vectors && vectors.recallAt10 >= 0.95,
    },
    {
      target: 'vector search p50 ≤ 2.4 ms, exact nearest neighbour kept (issue 12, Node, 63,436 × 384)',
      figure: vectors && `${fixed(vectors.vectorOnly.p50, 2)} ms, nearest kept in ${fixed(vectors.nearestKept * 100, 0)} % of queries`,
      met: vectors && vectors.vectorOnly.p50 <= 2.4 && vectors.nearestKept === 1,
    },
    {
      target: 'highlight + snippet of 10 hits ≤ 0.3 ms p50 (issue 13, Node, in process)',
      figure: r.inProcess?.highlight && `${fixed(r.inProcess.highlight.p50, 3)} ms (p99 ${fixed(r.inProcess.highlight.p99, 3)} ms)`,
      met: r.inProcess?.highlight && r.inProcess.highlight.p50 <= 0.3,
    },
    {
      target: 'search page: keystroke to rendered results ≤ 50 ms p50 (issue 13, Chromium, new queries)',
      figure: warm && `${fixed(warm.p50, 0)} ms (p90 ${fixed(warm.p90, 0)}, p99 ${fixed(warm.p99, 0)})`,
      met: warm && warm.p50 <= 50,
    },
  ];
}

const memoryCell = ({ memoryMB, heapMB, buffersMB }) => `${fixed(memoryMB)} MB (${fixed(heapMB)} + ${fixed(buffersMB)})`;

const PHASES = {
  cold: 'first keystroke on a freshly opened page',
  warm: 'the following keystrokes (queries not asked before)',
  repeated: 'the same words typed again (answers seen before)',
};

function searchPageSection(page, localObservability) {
  const out = ['## Search page: keystroke to rendered results (issue 13, Chromium)', ''];
  if (!page) return [...out, 'Not measured (see the failed steps).', ''];
  const cacheCell = (counts) =>
    Object.entries(counts)
      .map(([header, n]) => `${header} ${n}`)
      .join(', ');
  return [
    ...out,
    `Debian's Chromium (headless, playwright-core) types ${page.words} words of the demo catalogue key by key into \`/ui/demo/catalog\` of ${page.server === 'npm run dev' ? 'a running `npm run dev`' : `a \`wrangler dev\` seeded like \`npm run dev\` (its local trace collector ${localObservability ? 'on' : 'off'}, as in the HTTP steps)`}, each key once the previous key's results and suggestions are on the page. A keystroke lasts from its keydown event to the moment the hits list is drawn for the query it made (measured in the page); its search call is the page's \`fetch\` from the call to the answer's headers; every keystroke also asks suggest. The edge cache answers GET searches only (POST: \`BYPASS\`).`,
    '',
    table(
      [
        'keystrokes',
        'n',
        'p50 ms',
        'p90 ms',
        'p99 ms',
        'max ms',
        'its search call p50 ms',
        'search calls per keystroke',
        'X-Edge-Cache of the search calls',
      ],
      Object.entries(PHASES).map(([id, label]) => {
        const p = page.phases[id];
        return [
          label,
          p.n,
          fixed(p.p50, 0),
          fixed(p.p90, 0),
          fixed(p.p99, 0),
          fixed(p.max, 0),
          fixed(p.callP50, 0),
          fixed(p.searchesPerKey, 2),
          cacheCell(p.edgeCache),
        ];
      }),
    ),
    '',
    ...stagesTable(page),
  ];
}

/** Where a keystroke's time goes, stage by stage, for new and for repeated queries (keystrokes with one search call). */
function stagesTable(page) {
  const phases = ['warm', 'repeated'].map((id) => page.phases[id]);
  if (!phases.some((p) => p.stages && Object.keys(p.stages).length)) return [];
  const row = (label, figures, name) => [
    label,
    ...phases.flatMap((p) => [fixed(p[figures]?.[name]?.p50, 1), fixed(p[figures]?.[name]?.mean, 1)]),
  ];
  const widgetNames = [...new Set(phases.flatMap((p) => Object.keys(p.widgets ?? {})))].sort(
    (a, b) => (phases[0].widgets[b]?.mean ?? 0) - (phases[0].widgets[a]?.mean ?? 0),
  );
  return [
    'Where a keystroke goes, stage by stage (each from the end of the one before; the means add up to the mean keystroke, the p50s need not): the page marks when InstantSearch asked its search client and when it answered, and each widget’s `getRenderState` + `render` (ui/timings.ts, User Timing); the search call’s stages are its Resource Timing; “next frame painted” (after the measured keystroke ends) is a message posted from the next `requestAnimationFrame`.',
    '',
    table(
      ['stage', 'new queries p50 ms', 'new queries mean ms', 'repeated p50 ms', 'repeated mean ms'],
      [
        ...Object.entries(STAGES).map(([name, label]) => row(label, 'stages', name)),
        ...widgetNames.map((name) => row(`widget ${name} (within “widgets”)`, 'widgets', name)),
      ],
    ),
    '',
  ];
}

/** A share of the empty route: the median over rounds, with the lowest and highest round when measured beside it. */
const shareCell = ({ shareOfLimit, shareRange }) =>
  `${fixed(shareOfLimit * 100)} %${shareRange ? ` (rounds ${fixed(shareRange[0] * 100)}–${fixed(shareRange[1] * 100)} %)` : ''}`;

const withSerial = (ms, serialMs) => `${ms} ms${serialMs === undefined ? '' : ` (1 connection: ${serialMs} ms)`}`;

function ratio(inProcess, type, peer, stat) {
  const of = (engine) => inProcess?.queries.find((q) => q.type === type && q.engine === engine);
  const ours = of('ours');
  const other = of(peer);
  return ours && other && !ours.unsupported && !other.unsupported ? ours[stat] / other[stat] : NaN;
}

/**
 * What the HTTP rows pay for wrangler dev's local trace collector (`X_LOCAL_OBSERVABILITY`): a cost of local
 * development only, measured once as CPU of the runtime process per request (docs/decisions.md).
 */
function localObservabilityNote(on) {
  const measured =
    'measured as CPU of the runtime process per request at 32 connections: empty route 1.16 ms with it, 0.78 without; keyword search + facets 3.56 against 2.50; a search answered from the search app’s memory of answers 2.18 against 1.47';
  return on
    ? `wrangler dev ran with its local trace collector on (\`BENCH_LOCAL_OBSERVABILITY=true\`): every invocation of the worker and of a Durable Object writes a trace into a SQLite Durable Object in the same runtime thread, a cost production does not pay (${measured}).`
    : `wrangler dev ran with its local trace collector off (\`X_LOCAL_OBSERVABILITY=false\`; \`BENCH_LOCAL_OBSERVABILITY=true\` keeps it): by default every invocation of the worker and of a Durable Object writes a trace into a SQLite Durable Object in the same runtime thread, a cost of local development only that a deployed worker does not pay in its isolate (${measured}). On 2026-11-23 a run of the same code with it on (\`BENCH_ONLY=http BENCH_LOCAL_OBSERVABILITY=true\`, just before the whole run below) measured every share higher: keyword search + facets 43.2 %, browsing 55.9 %, repeated queries 103.6 % of an empty route of 613 req/s (without it: 1,086), so the collector slows the empty route more than it slows a search.`;
}

/** How the load table's shares compare a scenario with the empty route. */
function sideBySideNote({ rounds, roundSeconds, connections }) {
  return `Each scenario runs beside the empty route, on the same ${connections} connections: after its warm-up, windows alternate between the empty route's requests and the scenario's (empty, scenario, empty, …: ${rounds} rounds of the scenario, ${rounds + 1} windows of the empty route, ${roundSeconds} s each). A window is measured from the moment every connection has sent a request of its kind (the other kind's requests have all answered) for ${roundSeconds} s, counting the answers of its own requests. A round's share is the scenario's req/s over the mean of the empty route's in the windows just before and after it; the table gives the median over the rounds and, in brackets, the lowest and highest round. So a share compares moments seconds apart, where scenarios measured one after the other compared moments minutes apart on a machine whose load drifts in between. A scenario's req/s and latencies are those of its windows, the empty route's those of all its windows beside every scenario.`;
}

/** The machine's load averages when the run started and ended (older runs recorded none). */
function loadAverages({ loadAtStart, loadAtEnd }) {
  const three = (load) => load.map((value) => fixed(value, 2)).join(' / ');
  return loadAtStart && loadAtEnd ? `${three(loadAtStart)} → ${three(loadAtEnd)}` : '–';
}

/** What every HTTP request of the load sends besides its scenario's own headers. */
function clientHeadersNote(acceptEncoding) {
  if (!acceptEncoding) return 'Every request sends no `Accept-Encoding` (`BENCH_ACCEPT_ENCODING` empty): answers come uncompressed.';
  return `Every request of every scenario, the empty route's included, sends \`Accept-Encoding: ${acceptEncoding}\` as a browser does: wrangler dev compresses JSON answers for it as Cloudflare's front line does (gzip when listed before br, the empty route's 15 bytes included), and a repeated answer the worker remembers goes out as its end compressed once behind the request's own head (\`encodeBody: 'manual'\`).`;
}

export function renderReport(r) {
  const out = [];
  out.push('# Benchmarks', '');
  out.push('Written by `npm run bench` (scripts/bench.mjs); figures of one run on one machine. Rerun to refresh.', '');
  out.push(
    table(
      ['date', 'machine cores', 'node', 'platform', 'run time', 'load average 1 / 5 / 15 min, at start → end'],
      [[r.meta.date, r.meta.cores, r.meta.node, r.meta.platform, `${fixed(r.meta.seconds, 0)} s`, loadAverages(r.meta)]],
    ),
    '',
  );
  if (r.errors.length) {
    out.push('## Steps that failed', '', ...r.errors.map((e) => `- ${e.step}: ${e.message.split('\n')[0]}`), '');
  }

  out.push('## Targets (issues 7 and 16)', '');
  out.push(
    table(
      ['target', 'figure', 'verdict'],
      judgeTargets(r).map((t) => [t.target, t.figure ?? '–', verdict(t.met)]),
    ),
    '',
  );
  const limit = r.load?.find((s) => s.id === 'empty' && !s.skipped);
  if (limit) {
    out.push(
      `The physical limit on this machine: the empty route answers ${thousands(limit.requestsPerSecond)} req/s with p50 ${limit.p50} ms / p99 ${limit.p99} ms at ${r.settings.connections} connections (${limit.serialP50} / ${limit.serialP99} ms at 1 connection). A latency target below the empty route's cannot be met by the engine alone on this machine.`,
      '',
    );
  }

  out.push('## Full feed through the public API (wrangler dev)', '');
  const shards = r.settings.shards > 1 ? `, ${r.settings.shards} shards` : '';
  const feeds = [
    r.feed && [`keyword only${shards}`, r.feed],
    r.hybrid?.feed && ['descriptions embedded (384-d, stand-in)', r.hybrid.feed],
  ].filter(Boolean);
  if (feeds.length) {
    out.push(
      table(
        [
          'search app',
          'documents',
          'chunk × concurrency',
          'upload (start → last bulk)',
          'end → searchable',
          'start → searchable',
          'documents/s end to end',
          'workerd CPU: upload + to searchable',
          'CPU ms per document',
          'rejected',
        ],
        feeds.map(([app, f]) => [
          app,
          thousands(f.documents),
          `${f.chunkSize} × ${f.concurrency}`,
          `${fixed(f.uploadSeconds)} s`,
          `${fixed(f.endToSearchableSeconds)} s`,
          `${fixed(f.totalSeconds)} s`,
          thousands(f.documentsPerSecond),
          f.cpuSeconds ? `${fixed(f.cpuSeconds.upload)} + ${fixed(f.cpuSeconds.toSearchable)} s` : '–',
          f.cpuSeconds ? fixed(((f.cpuSeconds.upload + f.cpuSeconds.toSearchable) * 1000) / f.documents, 2) : '–',
          thousands(f.rejected),
        ]),
      ),
      '',
    );
    if (feeds.some(([, f]) => f.cpuSeconds))
      out.push(
        'workerd CPU: user + system time of the process that runs the worker, every Durable Object, D1 and the queues (from /proc), until the last bulk answered and from then until searchable (the queue drained, the swap); steadier than wall-clock time on a shared machine.',
        '',
      );
    for (const [app, f] of feeds)
      if (f.rejected)
        out.push(`Rejected by the bulk answers of ${app} (first ${f.rejectedSample.length}): \`${JSON.stringify(f.rejectedSample)}\``, '');
  } else out.push('Not measured (see the failed steps).', '');

  out.push(
    `## HTTP load (autocannon, ${r.settings.connections} connections; each scenario ${r.settings.rounds} rounds of ${r.settings.roundSeconds} s beside the empty route after ${r.settings.warmupSeconds} s of warm-up; then ${r.settings.serialSeconds} s at 1 connection)`,
    '',
  );
  out.push(localObservabilityNote(r.settings.localObservability), '');
  if (r.load?.length && !r.feed && r.load.some((s) => s.id !== 'empty' && !s.skipped)) {
    out.push(
      '**The full feed failed: the search scenarios below ran against an index without the catalogue; their figures say nothing about the targets.**',
      '',
    );
  }
  const load = [...(r.load ?? []), ...(r.hybrid?.load ?? [])];
  if (load.length) {
    out.push(
      table(
        [
          'scenario',
          'req/s',
          'p50 ms',
          'p90 ms',
          'p99 ms',
          'share of empty route',
          '1 connection p50 / p99 ms',
          'non-2xx / errors',
          'one answer',
        ],
        load.map((s) =>
          s.skipped
            ? [s.label, '–', '–', '–', '–', '–', '–', '–', `skipped: ${s.skipped.replaceAll('|', '/')}`]
            : [
                s.label,
                thousands(s.requestsPerSecond),
                s.p50,
                s.p90,
                s.p99,
                s.shareOfLimit ? shareCell(s) : '–',
                s.serialP50 === undefined ? '–' : `${s.serialP50} / ${s.serialP99}`,
                `${s.non2xx} / ${s.errors}`,
                s.sample,
              ],
        ),
      ),
      '',
      `${clientHeadersNote(r.settings.acceptEncoding)} Search and suggest scenarios also send \`Cache-Control: no-cache\` (computed answers: no edge cache, no memory of answers in the search app); the repeated scenario sends the same keyword requests without it. ${sideBySideNote(r.settings)} Latencies are those of the measured windows' answers, in whole milliseconds. At 32 connections a latency includes the wait in the queue (≈ connections ÷ req/s), so on a small machine the p50 reflects throughput as much as the cost of one query; the in-process table below gives the cost of one query.`,
      '',
      ...(r.hybrid?.load
        ? [
            "Hybrid rows: the search app `debian-hybrid`, the same catalogue with `description` as its `semantic` field, embedded while fed by the tests' OpenAI-compatible stand-in (test/agent/openai-server.ts, concept vectors of 384 dimensions, started by the benchmark in Node; no real embedding model is reachable offline). Its no-cache rows still reuse the worker's cached query embeddings (the query list repeats), so they measure the fused search, not the provider.",
            '',
          ]
        : []),
    );
  } else out.push('Not measured (see the failed steps).', '');

  if (r.profile?.length) {
    const parts = [...new Set(r.profile.flatMap((p) => p.parts.map((part) => part.label)))];
    const share = (p, label) => p.parts.find((part) => part.label === label)?.share ?? 0;
    parts.sort((a, b) => r.profile.reduce((sum, p) => sum + share(p, b) - share(p, a), 0));
    out.push(
      '### Where the CPU goes (V8 profile of wrangler dev through its inspector)',
      '',
      table(
        ['part of the path', ...r.profile.map((p) => p.id)],
        parts.map((label) => [label, ...r.profile.map((p) => (share(p, label) ? `${fixed(share(p, label) * 100)} %` : '–'))]),
      ),
      '',
      'Share of the busy (not idle) CPU samples of the runtime that runs both the worker and the Durable Object, in a separate profiled run per scenario; each sample is attributed through the bundle’s source map to the source file of its JavaScript frame (native frames such as JSON, SQL or `Response` to the JavaScript that called them). autocannon runs on the same cores and is not in the profile. A share is of the samples, not of the runtime’s CPU time per request: V8 samples fall mostly while JavaScript runs, so workerd’s own work (HTTP, RPC, gzip) gets few and a long stretch of JavaScript such as the engine’s gets many (docs/decisions.md, workerd30). `garbage collector: a major collection` is the pause of a major (mark-compact) collection that fell in that scenario’s window (told by the V8 heap’s used size halving): one comes every several thousand keyword requests, when what the whole run promoted fills the old generation (mostly answers the search app keeps in its memory of answers), so it belongs to the run’s traffic rather than to that scenario; the row `garbage collector` is the rest (scavenges, marking steps).',
      '',
    );
  }

  out.push('## Cold start from persisted state', '');
  if (r.cold) {
    out.push(
      table(
        ['wrangler dev restart until /health answers', 'first search (keyword + facets)', 'second search'],
        [
          [
            `${fixed(r.cold.startSeconds)} s`,
            `${thousands(r.cold.firstSearchMs)} ms (total ${r.cold.firstTotal})`,
            `${fixed(r.cold.secondSearchMs)} ms`,
          ],
        ],
      ),
      '',
    );
  } else out.push('Not measured (see the failed steps).', '');

  out.push('## Search engine module in Node (whole catalogue)', '');
  const e = r.inProcess?.engine;
  if (e) {
    out.push(
      table(
        [
          'documents',
          'build',
          'memory after build (heap + buffers)',
          'serialize',
          'serialized size',
          'load',
          'memory after load (heap + buffers)',
          'loaded answers as built',
        ],
        [
          [
            thousands(e.documents),
            `${fixed(e.buildSeconds, 2)} s`,
            memoryCell(e),
            `${fixed(e.serializeSeconds, 2)} s`,
            `${fixed(e.serializedMB)} MB`,
            `${fixed(e.loadSeconds, 2)} s`,
            memoryCell({ memoryMB: e.loadedMemoryMB, heapMB: e.loadedHeapMB, buffersMB: e.loadedBuffersMB }),
            e.loadedAnswersSame ? 'yes' : '**no**',
          ],
        ],
      ),
      '',
      'Memory = `process.memoryUsage()` `heapUsed` + `arrayBuffers` once a `gc()` has settled (`memoryAfterGc`), by removal: the reading while the index lives less the reading once it is dropped (the serialized bytes still held then added back), because the baseline drifts by tens of MB during a run; typed arrays live outside `heapUsed` but count in an isolate’s 128 MB. The index is built from freshly parsed documents, so it is what the engine keeps.',
      '',
    );
  } else
    out.push(
      r.inProcess
        ? 'The engine module (src/search/engine/index.ts) does not exist yet on this branch.'
        : 'Not measured (see the failed steps).',
      '',
    );

  const v = r.inProcess?.vectors;
  if (v) {
    out.push(
      '## Vector and hybrid search in Node (issue 12)',
      '',
      `${thousands(v.documents)} catalogue documents × ${v.dimensions}-dimension vectors. No embedding model is reachable offline here, so the vectors are synthetic with clustered structure (1,000 topics, each document its topic's centre plus noise, cosine ≈ 0.6 to it; queries near random topics), made by scripts/bench/vectors.mjs. Vector search = binary-code Hamming top-200 + int8 rerank (src/search/engine/vectors.ts); hybrid = the keyword queries of the load table with a query vector at semanticRatio 0.5, facets included.`,
      '',
      table(
        ['search', 'p50 ms', 'p99 ms', 'queries'],
        [
          ['vector only, top 10', fixed(v.vectorOnly.p50, 2), fixed(v.vectorOnly.p99, 2), v.vectorOnly.count],
          ['exact float32 cosine, brute force (reference)', fixed(v.bruteForce.p50, 2), fixed(v.bruteForce.p99, 2), v.bruteForce.count],
          ['hybrid (keyword + facets + vector), semanticRatio 0.5', fixed(v.hybrid.p50, 2), fixed(v.hybrid.p99, 2), v.hybrid.count],
          ['the same keyword searches without vectors', fixed(v.keyword.p50, 2), fixed(v.keyword.p99, 2), v.keyword.count],
        ],
      ),
      '',
      table(
        ['vector index build', 'memory (heap + buffers)', 'serialized', 'recall@10 vs exact float32', 'exact nearest neighbour in top 10'],
        [
          [
            `${fixed(v.buildSeconds, 2)} s`,
            `${fixed(v.memoryMB)} MB`,
            `${fixed(v.serializedMB)} MB`,
            fixed(v.recallAt10, 3),
            `${fixed(v.nearestKept * 100, 0)} %`,
          ],
        ],
      ),
      '',
    );
  }

  if (r.replicas) out.push(...replicaSection(r));
  out.push(...searchPageSection(r.searchPage, r.settings.localObservability));

  out.push('## Ours vs Orama 3 vs MiniSearch, in one process, same documents and queries', '');
  if (r.inProcess) {
    out.push(
      table(
        ['engine', 'build', 'memory (heap + buffers)'],
        r.inProcess.engines.map((x) => [x.engine, `${fixed(x.buildSeconds, 2)} s`, memoryCell(x)]),
      ),
      '',
    );
    const types = [...new Set(r.inProcess.queries.map((q) => q.type))];
    const rows = types.flatMap((type) =>
      r.inProcess.queries
        .filter((q) => q.type === type)
        .map((q) => [
          q.label,
          q.engine,
          q.unsupported ? 'not supported' : fixed(q.p50, 2),
          q.unsupported ? '–' : fixed(q.p99, 2),
          q.count ?? '–',
          q.engine === 'ours'
            ? ''
            : `${fixed(ratio(r.inProcess, type, q.engine, 'p50'), 2)} / ${fixed(ratio(r.inProcess, type, q.engine, 'p99'), 2)}`,
          q.note ?? '',
        ]),
    );
    out.push(table(['query type', 'engine', 'p50 ms', 'p99 ms', 'queries', 'ours ÷ peer p50 / p99', 'note'], rows), '');
    out.push(
      'Orama 3: `name`, `description`, `maintainer` searched (boost 10/3/1, tolerance 1); facets section, tags, attributes.priority/architecture/source, installedSize (5 ranges), essential; tags indexed with their ancestors so a tree filter is a `containsAny`. MiniSearch alone: `name`, `description`, `maintainer`, fuzzy 0.2 + prefix, no facets or filters. Ratio < 1: ours is faster.',
      '',
    );
  } else out.push('Not measured (see the failed steps).', '');
  return out.join('\n');
}

/** Keyword search and suggest through read replicas (issue 16): the primary alone, 1 replica and 3, same requests. */
function replicaSection(r) {
  const shards = r.settings.shards > 1 ? `, every shard of the ${r.settings.shards} with its replicas` : '';
  const row = (c, kind, f) => [
    c.label,
    kind,
    kind === 'search' && c.copySeconds !== undefined ? `${fixed(c.copySeconds)} s` : '–',
    thousands(f.requestsPerSecond),
    f.p50,
    f.p99,
    f.serialP50 === undefined ? '–' : `${f.serialP50} / ${f.serialP99}`,
    `${f.non2xx} / ${f.errors}`,
    kind === 'search'
      ? Object.entries(c.servedBy)
          .map(([copy, n]) => `${copy} ${n}`)
          .join(', ')
      : '',
  ];
  return [
    `## Read replicas (issue 16${shards}; autocannon, ${r.settings.connections} connections, ${r.settings.seconds} s each; then ${r.settings.serialSeconds} s at 1 connection)`,
    '',
    table(
      [
        'configuration',
        'request',
        'copy made in',
        'req/s',
        'p50 ms',
        'p99 ms',
        '1 connection p50 / p99 ms',
        'non-2xx / errors',
        r.settings.shards > 1 ? 'shard parts of 30 searches answered by' : 'searches answered by (30 requests)',
      ],
      r.replicas.flatMap((c) => [row(c, 'search', c.search), row(c, 'suggest', c.suggest)]),
    ),
    '',
    'Keyword searches and suggestions by POST (never edge-cached; a varying `facetLimit`, and `rows` from 1 to 20 for suggest, keep the objects’ memory of answers from answering them), without `no-cache`, so a replica answers when it has the version the worker learned from the primary within the last second. The continent comes from `wrangler dev`’s `MF-CF-Blob` header. Locally every Durable Object runs in the one workerd process of this machine: the figures show what the replica path costs and that it keeps up, not the latency a nearer region saves in production. “copy made in” is from setting the replicas (a first read from every continent at once) until a read from each continent is answered by its replicas alone (snapshot streamed, documents copied, caught up, index loaded); the load runs after that, not during the copies.',
    '',
    ...r.replicas.flatMap((c) => [`- ${c.label}: ${replicaFootnote(c)}`]),
    '',
    '',
  ];
}

/** What the runtime did beside a configuration's load: memory once copied, CPU during the searches, one search alone, the profile when barely answered. */
function replicaFootnote(c) {
  const parts = [
    `once copied: V8 heap ${c.memory?.heap === undefined ? 'not read' : `${thousands(c.memory.heap)} MB`}${c.memory?.buffers === undefined ? '' : ` + array buffers ${thousands(c.memory.buffers)} MB`}, workerd resident ${c.memory?.rss === undefined ? 'not read' : `${thousands(c.memory.rss)} MB`}`,
    `workerd CPU during the search load ${c.cpuShare === undefined ? 'not read' : `${fixed(c.cpuShare)} s per second`}`,
    `one search alone after it ${c.aloneMs === undefined ? 'no answer within 120 s' : `${thousands(c.aloneMs)} ms`}`,
  ];
  if (c.explained)
    parts.push(
      `CPU profile of a run of its searches: ${c.explained
        .slice(0, 5)
        .map((p) => `${p.label} ${fixed(p.share * 100)} %`)
        .join(', ')}`,
    );
  return parts.join('; ') + '.';
}
