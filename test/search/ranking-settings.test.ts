// Ranking settings of a search app (issue 11): synonyms, stop words and custom ranking through the admin PUT,
// reaching the index at the next schedule-job re-index.
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, call, json, waitFor } from '../helpers';
import { allSettled, bulk, envelope, feedingApp, searchIds, type FeedingApp } from '../feeding/helpers';

const schema = {
  fields: [
    { code: 'title', dataType: 'string', searchMode: 'fuzzy', weight: 5, display: true },
    { code: 'stock', dataType: 'long', searchMode: 'off' },
    { code: 'featured', dataType: 'boolean', searchMode: 'off' },
  ],
};
const products = [
  envelope('a', { title: 'Sofa cover', stock: 3, featured: false }),
  envelope('b', { title: 'COUCH cover', stock: 40, featured: false }),
  envelope('c', { title: 'Couch cover', stock: 12, featured: true }),
  envelope('d', { title: 'Phone case', stock: 1 }),
  envelope('e', { title: 'Smartphone charger', stock: 9 }),
];

const settings = (app: FeedingApp, body: unknown) =>
  call('PUT', `/api/v1/admin/searchapps/${app.tenant}/${app.code}`, { token: ADMIN_TOKEN, body });

async function reindex(app: FeedingApp) {
  const { jobId } = await json(await call('PUT', `/api/v1/job/${app.tenant}/${app.code}/feeding/_schedule`, { token: app.feed, body: {} }));
  await waitFor(
    async () => json(await call('GET', `/api/v1/job/${app.tenant}/${app.code}/${jobId}`, { token: app.feed })),
    (job) => job.state === 'FINISHED',
  );
}

describe('ranking settings', () => {
  it('store synonyms, stop words and custom ranking, applied at the next re-index', async () => {
    const app = await feedingApp(schema);
    await allSettled(
      app,
      (await json(await bulk(app, products))).documents.map((d: { id: number }) => d.id),
    );
    expect(await searchIds(app, 'sofa')).toEqual(['a']);

    const res = await settings(app, {
      synonyms: [{ synonyms: ['couch', 'sofa'] }, { input: 'phone', synonyms: ['smartphone'] }],
      stopWords: ['cover'],
      customRanking: [
        { field: 'featured', direction: 'desc' },
        { field: 'stock', direction: 'desc' },
      ],
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ stopWords: ['cover'], customRanking: [{ field: 'featured' }, { field: 'stock' }] });
    expect(await searchIds(app, 'sofa')).toEqual(['a']);

    await reindex(app);
    // Multi-way: sofa finds the couch twins (ties ordered by custom ranking: featured, then stock), and back.
    expect(await searchIds(app, 'sofa')).toEqual(['a', 'c', 'b']);
    expect((await searchIds(app, 'couch')).sort()).toEqual(['a', 'b', 'c']);
    // One-way: phone finds smartphone, smartphone does not find phone.
    expect(await searchIds(app, 'phone')).toEqual(['d', 'e']);
    expect(await searchIds(app, 'smartphone')).toEqual(['e']);
    // Highlighting marks the synonym the query found (issue 13).
    const marked = await json(await call('GET', `/api/v1/search/${app.tenant}/${app.code}?q=couch&attributesToHighlight=title`));
    const titles = Object.fromEntries(
      marked.result.documents.map((d: { id: string; highlight: { title: string } }) => [d.id, d.highlight.title]),
    );
    expect(titles).toEqual({ a: '<mark>Sofa</mark> cover', b: '<mark>COUCH</mark> cover', c: '<mark>Couch</mark> cover' });
    // `cover` is a stop word now: alone it still matches, beside another word it is optional.
    expect(await searchIds(app, 'cover')).toHaveLength(3);
    expect(await searchIds(app, 'charger cover')).toEqual(['e']);

    // A PUT without ranking settings keeps them.
    expect(await json(await settings(app, { name: 'Shop' }))).toMatchObject({ stopWords: ['cover'] });
  });

  it('refuses custom ranking on a text field and malformed rules, changing nothing', async () => {
    const app = await feedingApp(schema);
    let res = await settings(app, { customRanking: [{ field: 'title', direction: 'desc' }], stopWords: ['x'] });
    expect(res.status).toBe(400);
    expect((await json(res)).details).toEqual([expect.objectContaining({ path: 'customRanking.0.field' })]);
    res = await settings(app, { synonyms: [{ synonyms: ['alone'] }] });
    expect(res.status).toBe(400);
    res = await settings(app, { customRanking: [{ field: 'stock', direction: 'up' }] });
    expect(res.status).toBe(400);
    expect(await json(await settings(app, {}))).toMatchObject({ stopWords: null, synonyms: [], customRanking: [] });
  });
});
