// `npm run relevance -- --shards N`: our engine over the catalogue as one index and as N shards (documents routed by
// the service's id hash, BM25 statistics summed over the shards before each query, hits merged by their keys, as
// the service's SearchAppClient does), and whether every case's top 10 is the same.
import { MRR_DEPTH } from './metrics.mjs';

/** N `SearchIndex` shards behind the `ranked` call the relevance run asks. */
export function shardedEngine(engine, config, shards) {
  const { SearchIndex, shardOf, mergeCorpusStats, mergeHits } = engine;
  const indexes = Array.from({ length: shards }, () => new SearchIndex(config));
  const feedingOrder = new Map();
  return {
    name: `ours, ${shards} shards`,
    add: (envelope) => {
      feedingOrder.set(envelope.header.id, feedingOrder.size);
      indexes[shardOf(envelope.header.id, shards)].add(envelope.header.id, envelope.payload);
    },
    ranked: ({ q, rows }) => {
      const corpus = mergeCorpusStats(indexes.map((index) => index.corpusStats(q)));
      const part = { feedingKey: (id) => feedingOrder.get(id), corpus };
      const parts = indexes.map((index) => index.search({ q, page: 1, rows }, undefined, part));
      return mergeHits(parts, 0, rows).map((hit) => hit.id);
    },
  };
}

const START = '<!-- shards: written by npm run relevance -- --shards N -->';

/** docs/relevance.md with the comparison's section replaced (or appended). */
export function withShardSection(markdown, { shards, single, sharded }) {
  const differing = single.outcomes.filter((outcome, i) => outcome.ranked.join(' ') !== sharded.outcomes[i].ranked.join(' '));
  const same = single.outcomes.length - differing.length;
  const lines = [
    START,
    `## One index against ${shards} shards`,
    '',
    `Our engine over the same catalogue as one index and as ${shards} shards (documents by the hash of their id, the whole index's BM25 statistics handed to every shard, hits merged by their keys): **${same} of ${single.outcomes.length}** cases give the same top ${MRR_DEPTH} (ids and order).`,
    '',
    ...(differing.length
      ? [
          'Cases that differ, the first 20 (docs/decisions.md, Shards: the name-family prior is still computed per shard, from the titles each shard holds):',
          '',
          '| query | one index, top 3 | shards, top 3 |',
          '|---|---|---|',
          ...differing.slice(0, 20).map((outcome) => {
            const other = sharded.outcomes.find((o) => o.query === outcome.query);
            return `| \`${outcome.query}\` | ${outcome.ranked.slice(0, 3).join(', ')} | ${other.ranked.slice(0, 3).join(', ')} |`;
          }),
        ]
      : []),
  ];
  const at = markdown.indexOf(START);
  return (at < 0 ? markdown.trimEnd() + '\n\n' : markdown.slice(0, at)) + lines.join('\n') + '\n';
}
