// `npm run relevance -- --shards N`: our engine over the catalogue as one index and as N shards (documents routed by
// the service's id hash, each shard handed the other shards' statistics once the catalogue is in, hits merged by
// their keys, as the service's SearchAppClient does), and whether every case's top 10 is the same.
import { MRR_DEPTH } from './metrics.mjs';

/** N `SearchIndex` shards behind the `ranked` call the relevance run asks. */
export function shardedEngine(engine, config, shards) {
  const { SearchIndex, shardOf, sumShares, othersShare, settleParts, mergeHits } = engine;
  const indexes = Array.from({ length: shards }, () => new SearchIndex(config));
  const feedingOrder = new Map();
  const part = { feedingKey: (id) => feedingOrder.get(id) };
  return {
    name: `ours, ${shards} shards`,
    add: (envelope) => {
      feedingOrder.set(envelope.header.id, feedingOrder.size);
      indexes[shardOf(envelope.header.id, shards)].add(envelope.header.id, envelope.payload);
    },
    finish: () => {
      const shares = indexes.map((index) => index.statisticsShare());
      const summed = sumShares(shares);
      indexes.forEach((index, i) => index.useOtherShards(othersShare(summed, shares[i])));
    },
    ranked: async ({ q, rows }) => {
      const request = { q, page: 1, rows };
      const ask = (i, rules) => indexes[i].search(request, undefined, { ...part, ...rules });
      const rules = indexes.map(() => ({}));
      const parts = await settleParts(
        indexes.map((_, i) => ask(i, rules[i])),
        rules,
        ask,
      );
      return mergeHits(parts, 0, rows).map((hit) => hit.id);
    },
  };
}

/** The cases whose top 10 (ids and order) differ between two runs over the same cases. */
export function differingCases(single, sharded) {
  return single.outcomes.filter((outcome, i) => outcome.ranked.join(' ') !== sharded.outcomes[i].ranked.join(' '));
}

const START = '<!-- shards: written by npm run relevance -- --shards N -->';

/** docs/relevance.md with the comparison's section replaced (or appended). */
export function withShardSection(markdown, { shards, single, sharded }) {
  const differing = differingCases(single, sharded);
  const same = single.outcomes.length - differing.length;
  const lines = [
    START,
    `## One index against ${shards} shards`,
    '',
    `Our engine over the same catalogue as one index and as ${shards} shards (documents by the hash of their id, each shard handed the other shards' statistics — BM25 figures and name families — at ingest, hits merged by their keys): **${same} of ${single.outcomes.length}** cases give the same top ${MRR_DEPTH} (ids and order).`,
    '',
    ...(differing.length
      ? [
          'Cases that differ, the first 20:',
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
