// The engines compared in one process: ours (bundled from src/search/engine), Orama 3 with facets, MiniSearch alone.
// Each adapter answers the four query types of the HTTP load; `undefined` = the peer has no such feature.
// `ranked({ q, rows })` answers the ids of the first `rows` hits, best first, for the relevance suite.
import { count, create, insertMultiple, search } from '@orama/orama';
import MiniSearch from 'minisearch';

/** `interface/x11` -> `interface`, `interface/x11`: how a peer without tree filters can filter by a category. */
function withAncestors(paths = []) {
  const all = new Set();
  for (const path of paths) {
    const parts = path.split('/');
    for (let i = 1; i <= parts.length; i++) all.add(parts.slice(0, i).join('/'));
  }
  return [...all];
}

export function ourEngine(SearchIndex, config) {
  let index = new SearchIndex(config);
  return {
    name: 'ours',
    add: (envelope) => index.add(envelope.header.id, envelope.payload),
    size: () => index.size,
    keyword: (request) => index.search({ page: 1, ...request }),
    ranked: ({ q, rows }) => index.search({ q, page: 1, rows }).hits.map((hit) => hit.id),
    filtered: (request) => index.search({ page: 1, ...request }),
    browse: (request) => index.search({ page: 1, ...request }),
    suggest: (request) => index.suggest(request),
    serialize: () => index.serialize(),
    replaceWith: (loaded) => {
      index = loaded;
    },
  };
}

const ORAMA_RANGES = [
  { from: 0, to: 100 },
  { from: 100, to: 1000 },
  { from: 1000, to: 10_000 },
  { from: 10_000, to: 100_000 },
  { from: 100_000, to: Number.MAX_SAFE_INTEGER },
];

const ORAMA_FACETS = {
  section: { limit: 50 },
  tags: { limit: 50 },
  'attributes.priority': { limit: 50 },
  'attributes.architecture': { limit: 50 },
  'attributes.source': { limit: 50 },
  installedSize: { ranges: ORAMA_RANGES },
  essential: { true: true, false: true },
};

function oramaWhere(filters = {}) {
  const where = {};
  for (const [id, filter] of Object.entries(filters)) {
    if (filter.filterType === 'range') {
      where[id] = { between: [filter.minValue ?? 0, filter.maxValue ?? Number.MAX_SAFE_INTEGER] };
    } else if (id === 'tags') {
      where.tags = { containsAny: filter.values };
    } else {
      where[id] = { in: filter.values };
    }
  }
  return where;
}

export function oramaEngine() {
  const db = create({
    schema: {
      name: 'string',
      description: 'string',
      maintainer: 'string',
      section: 'enum',
      tags: 'enum[]',
      attributes: { priority: 'enum', architecture: 'enum', source: 'enum' },
      installedSize: 'number',
      essential: 'boolean',
    },
  });
  const pending = [];
  const flush = () => {
    if (pending.length) insertMultiple(db, pending.splice(0), 1000);
  };
  // With an empty term Orama lists every document; `properties` there costs it seconds, so it is left out.
  const textSearch = { properties: ['name', 'description', 'maintainer'], boost: { name: 10, description: 3 }, tolerance: 1 };
  const query = ({ q, page = 1, rows, filters }) =>
    search(db, {
      term: q,
      ...(q ? textSearch : {}),
      limit: rows,
      offset: (page - 1) * rows,
      facets: ORAMA_FACETS,
      ...(filters ? { where: oramaWhere(filters) } : {}),
    });
  return {
    name: 'Orama 3',
    add: (envelope) => {
      const { payload } = envelope;
      pending.push({ id: envelope.header.id, ...payload, tags: withAncestors(payload.tags) });
      if (pending.length >= 1000) flush();
    },
    finish: flush,
    size: () => count(db),
    keyword: query,
    ranked: async ({ q, rows }) => (await search(db, { term: q, ...textSearch, limit: rows })).hits.map((hit) => hit.id),
    filtered: query,
    browse: query,
    // Orama has no suggest: the closest is a prefix search on the name, which answers documents, not completions.
    suggest: ({ q, rows }) => search(db, { term: q, properties: ['name'], tolerance: 1, limit: rows }),
    suggestNote: 'prefix search on name (Orama has no suggest)',
  };
}

export function miniSearchEngine() {
  const index = new MiniSearch({
    fields: ['name', 'description', 'maintainer'],
    searchOptions: { fuzzy: 0.2, prefix: true, boost: { name: 10, description: 3 } },
  });
  return {
    name: 'MiniSearch',
    add: (envelope) => index.add({ id: envelope.header.id, ...pick(envelope.payload, ['name', 'description', 'maintainer']) }),
    size: () => index.documentCount,
    keyword: ({ q, rows }) => index.search(q).slice(0, rows),
    ranked: ({ q, rows }) =>
      index
        .search(q)
        .slice(0, rows)
        .map((hit) => hit.id),
    filtered: undefined,
    browse: undefined,
    suggest: ({ q, rows }) => index.autoSuggest(q).slice(0, rows),
  };
}

function pick(object, keys) {
  return Object.fromEntries(keys.map((key) => [key, object[key]]));
}
