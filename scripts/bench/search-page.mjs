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

// Runs in the page before its own scripts: keydown time per query typed, the page's search calls (through fetch),
// and once a typed query is rendered, its latency with the search calls made since its key.
function recordKeystrokes() {
  const state = { waiting: [], calls: [], samples: [] };
  window.__keystrokes = state;
  const pageFetch = window.fetch;
  window.fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input), location.href);
    const started = performance.now();
    const response = await pageFetch(input, init);
    if (/^\/api\/v1\/search\/(?!suggest\/)/.test(url.pathname))
      state.calls.push({ started, ms: performance.now() - started, edgeCache: response.headers.get('X-Edge-Cache') ?? 'none' });
    return response;
  };
  let keyAt;
  document.addEventListener('keydown', (event) => (keyAt = event.timeStamp), true);
  document.addEventListener(
    'input',
    (event) => {
      if (keyAt === undefined) return;
      state.waiting.push({ query: event.target.value, keyAt });
      keyAt = undefined;
    },
    true,
  );
  const observer = new MutationObserver(() => {
    const rendered = document.body.dataset.renderedQuery;
    const i = state.waiting.findIndex((w) => w.query === rendered);
    if (i < 0) return;
    const { keyAt } = state.waiting[i];
    const calls = state.calls.filter((call) => call.started >= keyAt);
    state.samples.push({ query: rendered, ms: performance.now() - keyAt, calls });
    state.waiting.splice(0, i + 1);
    state.calls = [];
  });
  document.addEventListener('DOMContentLoaded', () =>
    observer.observe(document.body, { attributes: true, attributeFilter: ['data-rendered-query'] }),
  );
}

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
    ['cold', 'warm', 'repeated'].map((name) => [name, { ms: [], callMs: [], searches: 0, keys: 0, edgeCache: {} }]),
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
        { ...summary(p.ms), callP50: percentile(p.callMs, 50), searchesPerKey: p.searches / p.keys, edgeCache: p.edgeCache },
      ]),
    ),
  };
}
