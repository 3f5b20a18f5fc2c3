// A catalogue of any size derived from the Debian one (issue 16's scale benchmark): the originals first, then
// variants of them round after round, each with a changed name, description, section, tags, attributes,
// maintainer, version and sizes. Deterministic: document i is the same on every run, so runs compare.

const AFFIXES = ['ng', 'plus', 'lite', 'pro', 'tools', 'extra', 'nightly', 'classic', 'next', 'cli', 'gtk', 'qt', 'server', 'client'];
const ARCHITECTURES = ['amd64', 'all', 'arm64', 'i386', 'riscv64'];

/** A small seeded generator (mulberry32): the same seed gives the same numbers. */
export function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Value pools the variants draw from: words, sections, tags, priorities and maintainers of the whole catalogue. */
function poolsOf(envelopes) {
  const words = new Set();
  const sections = new Set();
  const tags = new Set();
  const priorities = new Set();
  const maintainers = new Set();
  for (const { payload } of envelopes) {
    for (const word of String(payload.description ?? '').split(/\s+/)) if (/^[a-z]{4,}$/.test(word)) words.add(word);
    if (payload.section) sections.add(payload.section);
    for (const tag of payload.tags ?? []) tags.add(tag);
    if (payload.attributes?.priority) priorities.add(payload.attributes.priority);
    if (payload.maintainer) maintainers.add(payload.maintainer);
  }
  return { words: [...words], sections: [...sections], tags: [...tags], priorities: [...priorities], maintainers: [...maintainers] };
}

const pick = (next, list) => list[Math.floor(next() * list.length)];

/** Round `round` (≥ 1) of a document: a new id and name, about a fifth of its values changed. */
function variant({ header, payload }, round, pools, next) {
  const affix = AFFIXES[(round - 1) % AFFIXES.length];
  const generation = Math.floor((round - 1) / AFFIXES.length);
  const name = `${payload.name}-${affix}${generation ? generation + 1 : ''}`;
  const words = String(payload.description ?? '').split(' ');
  for (let k = 0; k < Math.max(1, words.length / 5); k++) words[Math.floor(next() * words.length)] = pick(next, pools.words);
  const tags = (payload.tags ?? []).filter(() => next() > 0.2);
  if (next() < 0.3) tags.push(pick(next, pools.tags));
  const scale = 0.5 + next() * 1.5;
  return {
    // `_` never appears in Debian package names, so a variant's id cannot meet an original's.
    header: { id: `${header.id}_v${round}`, action: 'update' },
    payload: {
      ...payload,
      name,
      description: words.join(' '),
      section: next() < 0.2 ? pick(next, pools.sections) : payload.section,
      tags: [...new Set(tags)],
      attributes: {
        ...payload.attributes,
        priority: next() < 0.1 ? pick(next, pools.priorities) : payload.attributes?.priority,
        architecture: next() < 0.2 ? pick(next, ARCHITECTURES) : payload.attributes?.architecture,
      },
      maintainer: next() < 0.3 ? pick(next, pools.maintainers) : payload.maintainer,
      version: `${payload.version ?? '0'}+v${round}`,
      installedSize: Math.round((payload.installedSize ?? 0) * scale),
      size: Math.round((payload.size ?? 0) * scale),
      essential: false,
    },
  };
}

/**
 * `total` envelopes: the catalogue's own, then round 1 of every document, round 2, and so on.
 * Iterable any number of times and never held in memory whole (`length` is `total`).
 */
export function variantCatalogue(envelopes, total) {
  const pools = poolsOf(envelopes);
  return {
    length: total,
    *[Symbol.iterator]() {
      for (let i = 0; i < total; i++) {
        const base = envelopes[i % envelopes.length];
        const round = Math.floor(i / envelopes.length);
        yield round === 0 ? base : variant(base, round, pools, random(i));
      }
    },
  };
}
