// Step 7: keystroke to rendered results on the search page (issue 13). Debian's Chromium (playwright-core) opens
// /ui/{tenant}/{code} of a server holding the demo catalogue and types words key by key, as a person would: the
// next key once the answer and the suggestions of the last one are on the page. The page measures each keystroke
// itself: from the keydown event's timestamp to the moment the hits list has been drawn for the query that key
// made (the page marks <body data-rendered-query> after every render; a MutationObserver sees it in the same task).
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../chromium.mjs';
import { percentile } from './stats.mjs';

/** Words of the demo catalogue, one misspelt (`pyhton`): each keystroke is a new query (typo and prefix search). */
export const PAGE_WORDS = [
  'editor',
  'python',
  'firefox',
  'network',
  'compiler',
  'font',
  'database',
  'game',
  'audio',
  'kernel',
  'terminal',
  'browser',
  'monitor',
  'pyhton',
  'libreoffice',
  'perl',
  'image',
];

/**
 * The stages of a keystroke, in order, each from the end of the one before: what the page's User Timing marks
 * (ui/timings.ts), the search call's Resource Timing and the recorder's own hooks can tell apart.
 */
export const STAGES = {
  input: 'keydown → input event',
  state: 'input → search client asked (InstantSearch state, helper)',
  request: 'client asked → fetch called (adapter, typed client)',
  queued: 'fetch called → request sent (browser)',
  server: 'request sent → first byte (worker, Durable Object, loopback)',
  download: 'first byte → last byte',
  parse: 'last byte → JSON parsed',
  translate: 'JSON parsed → client answered (adapter: Algolia results)',
  results: 'client answered → first widget (helper results, scheduled render)',
  widgets: 'widgets prepare and render',
  rendered: 'last widget → render event',
  paint: 'render event → next frame painted',
};

// Runs in the page before its own scripts: keydown time per query typed, the page's search calls (through fetch,
// with their Resource Timing and when their JSON was parsed), and once a typed query is rendered, its latency,
// the search calls made since its key and, when there was one, the stages of that keystroke.
function recordKeystrokes() {
  const state = { waiting: [], calls: [], samples: [] };
  window.__keystrokes = state;
  const pageFetch = window.fetch;
  window.fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input), location.href);
    const started = performance.now();
    const response = await pageFetch(input, init);
    if (/^\/api\/v1\/search\/(?!suggest\/)/.test(url.pathname)) {
      const call = { url: url.href, started, ms: performance.now() - started, edgeCache: response.headers.get('X-Edge-Cache') ?? 'none' };
      state.calls.push(call);
      const json = response.json.bind(response);
      response.json = async () => {
        const parsed = await json();
        call.parsedAt = performance.now();
        return parsed;
      };
    }
    return response;
  };
  let keyAt;
  document.addEventListener('keydown', (event) => (keyAt = event.timeStamp), true);
  document.addEventListener(
    'input',
    (event) => {
      if (keyAt === undefined) return;
      state.waiting.push({ query: event.target.value, keyAt, inputAt: performance.now() });
      keyAt = undefined;
    },
    true,
  );

  /** Per stage, its milliseconds (keys of STAGES), and per widget label its prepare + render time. */
  function stagesOf(waiter, call, renderedAt) {
    const after = (entries) => entries.filter((entry) => entry.startTime >= waiter.keyAt);
    const asked = after(performance.getEntriesByName('search-client:asked'))[0]?.startTime;
    const answered = after(performance.getEntriesByName('search-client:answered'))[0]?.startTime;
    const resource = after(performance.getEntriesByName(call.url, 'resource'))[0];
    const widgetTimes = after(performance.getEntriesByType('measure')).filter((m) => m.startTime >= answered);
    if (asked === undefined || answered === undefined || !resource || !widgetTimes.length || call.parsedAt === undefined) return undefined;
    const widgets = {};
    for (const measure of widgetTimes) {
      const label = measure.name.replace(/^(prepare|render) (ais\.)?/, '');
      widgets[label] = (widgets[label] ?? 0) + measure.duration;
    }
    const widgetsStart = widgetTimes[0].startTime;
    const widgetsEnd = Math.max(...widgetTimes.map((m) => m.startTime + m.duration));
    return {
      stages: {
        input: waiter.inputAt - waiter.keyAt,
        state: asked - waiter.inputAt,
        request: call.started - asked,
        queued: resource.requestStart - call.started,
        server: resource.responseStart - resource.requestStart,
        download: resource.responseEnd - resource.responseStart,
        parse: call.parsedAt - resource.responseEnd,
        translate: answered - call.parsedAt,
        results: widgetsStart - answered,
        widgets: Object.values(widgets).reduce((sum, ms) => sum + ms, 0),
        rendered: renderedAt - widgetsEnd,
      },
      widgets,
    };
  }

  /** Fills in `stages.paint` once the frame after the render is drawn (a message posted in requestAnimationFrame arrives after it). */
  function afterPaint(sample, renderedAt) {
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        if (sample.stages) sample.stages.paint = performance.now() - renderedAt;
      };
      channel.port2.postMessage(undefined);
    });
  }

  const observer = new MutationObserver(() => {
    const renderedAt = performance.now();
    const rendered = document.body.dataset.renderedQuery;
    const i = state.waiting.findIndex((w) => w.query === rendered);
    if (i < 0) return;
    const waiter = state.waiting[i];
    const calls = state.calls.filter((call) => call.started >= waiter.keyAt);
    const breakdown = calls.length === 1 ? stagesOf(waiter, calls[0], renderedAt) : undefined;
    const sample = { query: rendered, ms: renderedAt - waiter.keyAt, calls, ...breakdown };
    state.samples.push(sample);
    afterPaint(sample, renderedAt);
    state.waiting.splice(0, i + 1);
    state.calls = [];
    // The Resource Timing buffer holds 250 entries: each keystroke starts from an empty one.
    performance.clearResourceTimings();
    performance.clearMarks();
    performance.clearMeasures();
  });
  document.addEventListener('DOMContentLoaded', () =>
    observer.observe(document.body, { attributes: true, attributeFilter: ['data-rendered-query'] }),
  );
}

/** Per stage (or widget), how many keystrokes it was measured in, its p50 and its mean (means add up, p50s do not). */
const breakdown = (byName) =>
  Object.fromEntries(
    Object.entries(byName).map(([name, ms]) => [
      name,
      { n: ms.length, p50: percentile(ms, 50), mean: ms.reduce((a, b) => a + b, 0) / ms.length },
    ]),
  );

const summary = (samples) => ({
  n: samples.length,
  p50: percentile(samples, 50),
  p90: percentile(samples, 90),
  p99: percentile(samples, 99),
  max: samples.length ? Math.max(...samples) : NaN,
});

/**
 * Measures the page of `tenant/app` at `baseUrl`. Phases: `cold` = the first keystroke on a freshly opened page
 * (new browser context: empty HTTP cache, no connection), `warm` = the other keystrokes of those words, each a query
 * not asked before, `repeated` = the same words typed again on one page (answers the service has seen).
 * Answers each phase's latency summary, its search calls per keystroke and their X-Edge-Cache headers.
 */
export async function measureSearchPage({ baseUrl, tenant, app, words = PAGE_WORDS, log = () => {} }) {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  const pageUrl = `${baseUrl}/ui/${tenant}/${app}`;
  const phases = Object.fromEntries(
    ['cold', 'warm', 'repeated'].map((name) => [
      name,
      { ms: [], callMs: [], searches: 0, keys: 0, edgeCache: {}, stages: {}, widgets: {} },
    ]),
  );

  async function openPage(context) {
    const page = await context.newPage();
    await page.addInitScript(recordKeystrokes);
    await page.goto(pageUrl);
    await rendered(page, '');
    await page.locator('#searchbox input').focus();
    return page;
  }

  const rendered = (page, query, withSuggestions = false) =>
    page.waitForFunction(
      ([q, suggestions]) =>
        document.body.dataset.renderedQuery === q && (!suggestions || document.getElementById('suggestions').dataset.query === q),
      [query, withSuggestions],
    );

  const takeSamples = (page) => page.evaluate(() => window.__keystrokes.samples.splice(0));

  async function type(page, word, phaseOf) {
    await takeSamples(page); // clearing the box (a Delete key) made one
    for (let i = 0; i < word.length; i++) {
      await page.keyboard.press(word[i]);
      await rendered(page, word.slice(0, i + 1), true);
    }
    const samples = await takeSamples(page);
    if (samples.length !== word.length) throw new Error(`'${word}': ${samples.length} of ${word.length} keystrokes measured`);
    samples.forEach((sample, i) => {
      const phase = phases[phaseOf(i)];
      phase.ms.push(sample.ms);
      phase.keys++;
      if (sample.stages) {
        for (const [stage, ms] of Object.entries(sample.stages)) (phase.stages[stage] ??= []).push(ms);
        for (const [widget, ms] of Object.entries(sample.widgets)) (phase.widgets[widget] ??= []).push(ms);
      }
      for (const call of sample.calls) {
        phase.searches++;
        phase.callMs.push(call.ms);
        phase.edgeCache[call.edgeCache] = (phase.edgeCache[call.edgeCache] ?? 0) + 1;
      }
    });
  }

  try {
    for (const word of words) {
      const context = await browser.newContext();
      try {
        await type(await openPage(context), word, (i) => (i === 0 ? 'cold' : 'warm'));
      } finally {
        await context.close();
      }
    }
    log(`search page: ${words.length} words typed on fresh pages`);
    const context = await browser.newContext();
    const page = await openPage(context);
    for (const word of words) {
      await page.locator('#searchbox input').fill('');
      await rendered(page, '');
      await type(page, word, () => 'repeated');
    }
    await context.close();
  } finally {
    await browser.close();
  }
  return {
    words: words.length,
    phases: Object.fromEntries(
      Object.entries(phases).map(([name, p]) => [
        name,
        {
          ...summary(p.ms),
          callP50: percentile(p.callMs, 50),
          searchesPerKey: p.searches / p.keys,
          edgeCache: p.edgeCache,
          stages: breakdown(p.stages),
          widgets: breakdown(p.widgets),
        },
      ]),
    ),
  };
}
