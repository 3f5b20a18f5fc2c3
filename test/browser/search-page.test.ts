import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEMO_APP, DEMO_TENANT } from './demo';
import { hitDetail, launchChromium, openPage, renderedFor, resultCount, type Browser } from './page';

const base = inject('browserBaseUrl');
const pageUrl = (query = '') => `${base}/ui/${DEMO_TENANT}/${DEMO_APP}${query}`;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** The service's own answer for a GET search, to compare the page with. */
async function apiTotal(query: string): Promise<number> {
  const answer = await fetch(`${base}/api/v1/search/${DEMO_TENANT}/${DEMO_APP}?rows=1&facets=&${query}`).then(
    (r) => r.json() as Promise<{ result: { total: number } }>,
  );
  return answer.result.total;
}

/** The service's total for a POST search (tree filters need POST). */
async function apiTotalOf(body: object): Promise<number> {
  const answer = await fetch(`${base}/api/v1/search/${DEMO_TENANT}/${DEMO_APP}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ rows: 1, facets: [], ...body }),
  }).then((r) => r.json() as Promise<{ result: { total: number } }>);
  return answer.result.total;
}

/** What a search call made with the page's own `fetch` received. */
interface Asked {
  /** `gzip` with a length: sent as the worker spliced it (what wrangler dev compresses itself goes chunked). */
  encoding: string | null;
  length: string | null;
  cache: string | null;
  body: { requestId: string; result: unknown };
}

describe('search page in Chromium', () => {
  it('suggests completions while typing and shows highlighted hits for a misspelled query', async () => {
    const page = await openPage(browser, pageUrl());
    await renderedFor(page, '');
    const box = page.getByRole('searchbox', { name: 'Search' });
    await box.click();
    await page.keyboard.type('pyth');
    const suggestion = page.locator('#suggestions li').first();
    await expect.poll(() => suggestion.innerText()).toMatch(/^pyth/);
    await page.keyboard.press('Escape');
    await box.fill('');
    await page.keyboard.type('pyton');
    await renderedFor(page, 'pyton');
    expect(await resultCount(page)).toBe(await apiTotal('q=pyton'));
    const marks = await page.locator('.hit h3 mark').allInnerTexts();
    expect(marks.length).toBeGreaterThan(0);
    expect(marks.every((mark) => mark.toLowerCase() === 'python')).toBe(true);
    // The router writes the URL after a short delay: wait for it rather than read it at once.
    await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe('pyton');
  });

  it('refines by a facet value: hits and counts change, other values of the facet keep their counts', async () => {
    const page = await openPage(browser, pageUrl('?q=python'));
    await renderedFor(page, 'python');
    const before = await resultCount(page);
    const item = (value: string) => page.locator('[data-facet="section"] .ais-RefinementList-item', { hasText: value });
    const docCount = Number(await item('doc').locator('.ais-RefinementList-count').innerText());
    const pythonCount = Number(await item('python').locator('.ais-RefinementList-count').innerText());
    expect(docCount).toBeLessThan(before);
    await item('doc').locator('input').check();
    await expect.poll(() => resultCount(page)).toBe(docCount);
    await expect.poll(async () => [...new Set(await hitDetail(page, 'section'))]).toEqual(['doc']);
    expect(Number(await item('python').locator('.ais-RefinementList-count').innerText())).toBe(pythonCount);
    await expect.poll(() => new URL(page.url()).searchParams.getAll('section')).toEqual(['doc']);
  });

  it('draws a refinement list for each key of the attributes facet and refines by one', async () => {
    const page = await openPage(browser, pageUrl('?q=python'));
    await renderedFor(page, 'python');
    const lists = await page
      .locator('[data-facet^="attributes."]')
      .evaluateAll((sections) => sections.map((s) => s.getAttribute('data-facet')));
    expect(lists).toEqual(
      expect.arrayContaining(['attributes.architecture', 'attributes.multiArch', 'attributes.priority', 'attributes.source']),
    );
    const before = await resultCount(page);
    const item = (value: string) =>
      page
        .locator('[data-facet="attributes.architecture"] .ais-RefinementList-item')
        .filter({ has: page.locator('.ais-RefinementList-labelText', { hasText: new RegExp(`^${value}$`) }) });
    const allCount = Number(await item('all').locator('.ais-RefinementList-count').innerText());
    const amd64Count = Number(await item('amd64').locator('.ais-RefinementList-count').innerText());
    expect(allCount).toBeLessThan(before);
    await item('all').locator('input').check();
    await expect.poll(() => resultCount(page)).toBe(allCount);
    expect(allCount).toBe(await apiTotal('q=python&f.attributes.architecture=all'));
    expect(Number(await item('amd64').locator('.ais-RefinementList-count').innerText())).toBe(amd64Count);
    await expect.poll(() => new URL(page.url()).searchParams.getAll('attributes.architecture')).toEqual(['all']);
  });

  it('moves a range slider: fewer hits, all inside the range, the range in the URL', async () => {
    const page = await openPage(browser, pageUrl());
    await renderedFor(page, '');
    const before = await resultCount(page);
    const upper = page.locator('[data-facet="installedSize"] .rheostat-handle').last();
    await upper.focus();
    for (let i = 0; i < 9; i++) await page.keyboard.press('PageDown');
    await expect.poll(() => new URL(page.url()).searchParams.get('installedSize') ?? '').toMatch(/^\d*:\d+$/);
    const [, max] = (new URL(page.url()).searchParams.get('installedSize') ?? '').split(':').map(Number);
    await expect.poll(() => resultCount(page)).toBe(await apiTotal(`f.installedSize=..${max}`));
    expect(await resultCount(page)).toBeLessThan(before);
    expect((await hitDetail(page, 'installedSize')).every((size) => Number(size) <= max)).toBe(true);
  });

  it('changes the sort to a named or field sort', async () => {
    const page = await openPage(browser, pageUrl('?q=lib'));
    await renderedFor(page, 'lib');
    await page.locator('.ais-SortBy-select').selectOption({ label: 'installedSize ↓' });
    await expect.poll(() => new URL(page.url()).searchParams.get('sort')).toBe('installedSize_desc');
    await expect
      .poll(async () => {
        const sizes = (await hitDetail(page, 'installedSize')).map(Number);
        return sizes.length > 1 && sizes.every((size, i) => i === 0 || sizes[i - 1] >= size);
      })
      .toBe(true);
  });

  it('drills the tags menu, pages, lists and clears the refinements, toggles a boolean', async () => {
    const page = await openPage(browser, pageUrl());
    await renderedFor(page, '');
    const everything = await resultCount(page);
    const menuItem = (label: string) =>
      page
        .locator('[data-facet="tags"] .ais-HierarchicalMenu-link')
        .filter({ has: page.locator('.ais-HierarchicalMenu-label', { hasText: new RegExp(`^${label}$`) }) });
    // A category link gets its URL when the pointer reaches it (so it opens in a new tab); a click refines in place.
    await menuItem('devel').hover();
    expect(await menuItem('devel').getAttribute('href')).toBe(`/ui/${DEMO_TENANT}/${DEMO_APP}?tags=devel`);
    await menuItem('devel').click();
    const devel = await apiTotalOf({ filters: { tags: { filterType: 'tree', values: ['devel'] } } });
    await expect.poll(() => resultCount(page)).toBe(devel);
    const firstHits = await page.locator('.hit').evaluateAll((hits) => hits.map((hit) => hit.getAttribute('data-id')));
    await page.locator('.ais-Pagination-item--page a', { hasText: /^2$/ }).click();
    await expect.poll(() => page.locator('.ais-Pagination-item--selected').innerText()).toBe('2');
    await expect.poll(() => new URL(page.url()).searchParams.get('page')).toBe('2');
    const secondHits = await page.locator('.hit').evaluateAll((hits) => hits.map((hit) => hit.getAttribute('data-id')));
    expect(secondHits.some((id) => firstHits.includes(id))).toBe(false);

    await menuItem('editor').click();
    const editor = await apiTotalOf({ filters: { tags: { filterType: 'tree', values: ['devel/editor'] } } });
    expect(editor).toBeLessThan(devel);
    await expect.poll(() => resultCount(page)).toBe(editor);
    await expect.poll(() => new URL(page.url()).searchParams.get('tags')).toBe('devel/editor');
    expect(new URL(page.url()).searchParams.get('page')).toBeNull();
    expect(await page.locator('#current .ais-CurrentRefinements-label').allInnerTexts()).toHaveLength(1);
    expect(await page.locator('#current .ais-CurrentRefinements-categoryLabel').allInnerTexts()).toEqual(['devel/editor']);

    await page.locator('#clear button').click();
    await expect.poll(() => resultCount(page)).toBe(everything);
    await expect.poll(() => new URL(page.url()).searchParams.get('tags')).toBeNull();
    expect(await page.locator('#current .ais-CurrentRefinements-item').count()).toBe(0);

    await page.locator('[data-facet="essential"] .ais-ToggleRefinement-label').click();
    await expect.poll(() => resultCount(page)).toBe(await apiTotal('f.essential=true'));
    expect(new Set(await hitDetail(page, 'essential'))).toEqual(new Set(['true']));
    await expect.poll(() => new URL(page.url()).searchParams.get('essential')).toBe('true');
  });

  it('types bounds into the range input and snippets descriptions around the match', async () => {
    const page = await openPage(browser, pageUrl('?q=editor'));
    await renderedFor(page, 'editor');
    const snippets = await page.locator('.hit p').allInnerTexts();
    expect(snippets.length).toBeGreaterThan(0);
    expect(await page.locator('.hit p mark').count()).toBeGreaterThan(0);
    const range = page.locator('[data-facet="installedSize"] .ais-RangeInput');
    await range.locator('.ais-RangeInput-input--min').fill('1000');
    await range.locator('.ais-RangeInput-input--max').fill('20000');
    await range.locator('.ais-RangeInput-submit').click();
    await expect.poll(() => resultCount(page)).toBe(await apiTotal('q=editor&f.installedSize=1000..20000'));
    await expect.poll(() => new URL(page.url()).searchParams.get('installedSize')).toBe('1000:20000');
    const sizes = (await hitDetail(page, 'installedSize')).map(Number);
    expect(sizes.length).toBeGreaterThan(0);
    expect(sizes.every((size) => size >= 1000 && size <= 20000)).toBe(true);
  });

  it('shows more values of a facet on demand, and says when nothing matches', async () => {
    const page = await openPage(browser, pageUrl());
    await renderedFor(page, '');
    const sections = page.locator('[data-facet="section"] .ais-RefinementList-item');
    await expect.poll(() => sections.count()).toBe(8);
    await page.locator('[data-facet="section"] .ais-RefinementList-showMore').click();
    await expect.poll(() => sections.count()).toBe(20);
    expect(await page.locator('[data-facet="section"] .ais-RefinementList-showMore').innerText()).toBe('Show less');
    const box = page.getByRole('searchbox', { name: 'Search' });
    await box.fill('zzqqxxv');
    await renderedFor(page, 'zzqqxxv');
    expect(await page.locator('#hits .empty').innerText()).toMatch(/^No results for .?zzqqxxv.?\.$/);
    expect(await page.locator('#hits .empty q').innerText()).toBe('zzqqxxv');
    expect(await page.locator('.hit').count()).toBe(0);
  });

  it('draws each hit from the fields it asks: title, snippet and details as the service answers them', async () => {
    const page = await openPage(browser, pageUrl());
    await renderedFor(page, '');
    const answers: Array<{ url: URL; documents: Array<{ id: string; document: Record<string, unknown> }> }> = [];
    page.on('response', async (response) => {
      const url = new URL(response.url());
      // Only answers for the typed query: under load another search answer once reached this listener (2, not 1).
      if (/^\/api\/v1\/search\/(?!suggest\/)/.test(url.pathname) && url.searchParams.get('q') === 'vim')
        answers.push({ url, documents: (await response.json()).result.documents });
    });
    await page.getByRole('searchbox', { name: 'Search' }).fill('vim');
    await renderedFor(page, 'vim');
    await expect.poll(() => answers.length).toBe(1);
    const [{ url, documents }] = answers;
    // The details line's fields only: the title and the text come as their highlight and snippet.
    expect(url.searchParams.get('attributesToRetrieve')?.split(',')).toEqual([
      'section',
      'maintainer',
      'version',
      'installedSize',
      'essential',
      'homepage',
    ]);
    expect(documents.every(({ document }) => !('name' in document) && !('description' in document) && !('tags' in document))).toBe(true);
    const full = await fetch(`${base}/api/v1/search/${DEMO_TENANT}/${DEMO_APP}?q=vim&rows=10&facets=`).then(
      (r) => r.json() as Promise<{ result: { documents: Array<{ id: string; document: Record<string, string> }> } }>,
    );
    const shown = full.result.documents.slice(0, 3);
    expect(await page.locator('.hit').evaluateAll((hits) => hits.slice(0, 3).map((hit) => hit.getAttribute('data-id')))).toEqual(
      shown.map((d) => d.id),
    );
    expect((await page.locator('.hit h3').allInnerTexts()).slice(0, 3)).toEqual(shown.map((d) => d.document.name));
    expect((await page.locator('.hit p').allInnerTexts()).slice(0, 3)).toEqual(shown.map((d) => d.document.description));
    expect((await hitDetail(page, 'section')).slice(0, 3)).toEqual(shown.map((d) => d.document.section));
  });

  it('marks a query as rendered only once its answer is drawn, not as the first search starts', async () => {
    const isSearch = (url: URL) => url.pathname === `/api/v1/search/${DEMO_TENANT}/${DEMO_APP}`;
    let sent!: () => void;
    const searchSent = new Promise<void>((resolve) => (sent = resolve));
    let answer!: () => void;
    const answerHeld = new Promise<void>((resolve) => (answer = resolve));
    await browser.context.route(isSearch, async (route) => {
      sent();
      await answerHeld;
      await route.continue();
    });
    try {
      const page = await openPage(browser, pageUrl());
      await searchSent;
      expect(await page.evaluate('document.body.dataset.renderedQuery')).toBeUndefined();
      answer();
      await renderedFor(page, '');
      expect(await page.locator('.hit').count()).toBe(10);
    } finally {
      await browser.context.unroute(isSearch);
    }
  });

  it('draws the hits list once per keystroke, with its answer, not again for the search starting', async () => {
    const page = await openPage(browser, pageUrl());
    await renderedFor(page, '');
    // Each childList change of #hits is one drawing of the list (it replaces its one child).
    await page.evaluate(`window.hitsDrawn = 0;
      new MutationObserver((records) => (window.hitsDrawn += records.length)).observe(document.getElementById('hits'), { childList: true });`);
    await page.getByRole('searchbox', { name: 'Search' }).click();
    for (const query of ['k', 'ke', 'ker', 'kern']) {
      await page.keyboard.press(query.at(-1) ?? '');
      await renderedFor(page, query);
    }
    expect(await page.evaluate('window.hitsDrawn')).toBe(4);
    expect(await page.locator('.hit').count()).toBe(10);
  });

  it('states the hit count in the stats line and pages through the results with the pagination', async () => {
    const page = await openPage(browser, pageUrl('?q=python'));
    await renderedFor(page, 'python');
    const total = await apiTotal('q=python');
    expect(await resultCount(page)).toBe(total);
    expect(await page.locator('.ais-Stats-text').innerText()).toMatch(/results? found in \d+\s?ms/);
    const pages = Math.ceil(total / 10);
    const lastShown = Math.min(pages, 7);
    expect(await page.locator('.ais-Pagination-item--page').allInnerTexts()).toEqual(
      Array.from({ length: lastShown }, (_, i) => String(i + 1)),
    );
    expect(await page.locator('.ais-Pagination-item--previousPage').getAttribute('class')).toContain('ais-Pagination-item--disabled');
    const firstIds = await page.locator('.hit').evaluateAll((hits) => hits.map((hit) => hit.getAttribute('data-id')));
    await page.locator('.ais-Pagination-item--nextPage a').click();
    await expect.poll(() => page.locator('.ais-Pagination-item--selected').innerText()).toBe('2');
    await expect.poll(() => new URL(page.url()).searchParams.get('page')).toBe('2');
    await expect
      .poll(() => page.locator('.hit').evaluateAll((hits) => hits.map((hit) => hit.getAttribute('data-id'))))
      .not.toEqual(firstIds);
    await page.locator('.ais-Pagination-item--lastPage a').click();
    await expect.poll(() => page.locator('.ais-Pagination-item--selected').innerText()).toBe(String(pages));
    await expect.poll(() => page.locator('.hit').count()).toBe(total - (pages - 1) * 10);
    expect(await page.locator('.ais-Pagination-item--nextPage').getAttribute('class')).toContain('ais-Pagination-item--disabled');
    expect(await resultCount(page)).toBe(total);
  });

  it('restores the query, refinements, sort and page from the URL', async () => {
    const page = await openPage(browser, pageUrl('?q=library&section=libs&section=libdevel&sort=installedSize_desc&page=2'));
    await renderedFor(page, 'library');
    expect(await page.getByRole('searchbox', { name: 'Search' }).inputValue()).toBe('library');
    const checked = page.locator('[data-facet="section"] .ais-RefinementList-item--selected');
    expect((await checked.locator('.ais-RefinementList-labelText').allInnerTexts()).sort()).toEqual(['libdevel', 'libs']);
    const total = await apiTotal('q=library&f.section=libs&f.section=libdevel');
    expect(total).toBeGreaterThan(10);
    expect(await resultCount(page)).toBe(total);
    const sections = await hitDetail(page, 'section');
    expect(sections.length).toBeGreaterThan(0);
    expect(sections.every((section) => section === 'libs' || section === 'libdevel')).toBe(true);
    expect(await page.locator('.ais-Pagination-item--selected').innerText()).toBe('2');
    expect(await page.locator('.ais-SortBy-select').inputValue()).toBe(`${DEMO_APP}:installedSize_desc`);
  });

  it('decodes a repeated search answer the worker splices as gzip to the same result as the computed one', async () => {
    const page = await openPage(browser, pageUrl());
    let asked = 0;
    // Each request its own requestId (not part of the answer's key), so Chromium's HTTP cache never answers for the worker.
    const ask = () =>
      page.evaluate(
        async ({ path, requestId }): Promise<Asked> => {
          const response = await fetch(`${path}&requestId=${requestId}`);
          return {
            encoding: response.headers.get('Content-Encoding'),
            length: response.headers.get('Content-Length'),
            cache: response.headers.get('X-Edge-Cache'),
            body: await response.json(),
          };
        },
        { path: `/api/v1/search/${DEMO_TENANT}/${DEMO_APP}?q=editor&rows=5`, requestId: `gzip-${asked++}` },
      );
    const first = await ask();
    let spliced: Asked | undefined;
    // wrangler dev gzips the computed answer and the first repeat itself (chunked, as Cloudflare would); that repeat
    // compresses the answer's end in the background, and a later one goes as the worker's splice, with its length.
    await expect
      .poll(async () => {
        spliced = await ask();
        return `${spliced.encoding} ${spliced.length !== null}`;
      })
      .toBe('gzip true');
    expect(spliced?.cache).toBe('HIT');
    expect(spliced?.body.requestId).toBe(`gzip-${asked - 1}`);
    expect(spliced?.body.result).toEqual(first.body.result);
  });
});
