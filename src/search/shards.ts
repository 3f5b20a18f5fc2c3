/**
 * Which index objects hold a search app: its documents spread over N shard Durable Objects by a stable hash
 * of the document id. Shard 0 is the object named `<tenant>/<code>` (the app's only object before sharding,
 * and its coordinator: it holds the layout and the full-feed cycle); shard i > 0 is `<tenant>/<code>#<i>`.
 * With one shard nothing changes: the app's one object is shard 0.
 */
import { fnv1a } from './engine/hash';

/** Most shards an app may have (admin search-app `shards`). */
export const MAX_SHARDS = 16;

/** The shards that hold an app's live index, and the generation of that index (bumped by every cross-shard swap). */
export interface ShardLayout {
  shards: number;
  generation: number;
}

/** The layout of an app that was never sharded. */
export const SINGLE_SHARD: ShardLayout = { shards: 1, generation: 0 };

/** The shard (0 to `shards` − 1) that holds a document. */
export function shardOf(documentId: string, shards: number): number {
  return shards <= 1 ? 0 : fnv1a(documentId) % shards;
}

/** The Durable Object name of an app's shard. */
export function shardName(tenantCode: string, code: string, shard: number): string {
  return shardOfPrimary(`${tenantCode}/${code}`, shard);
}

/** The Durable Object name of a shard of the app whose shard 0 is named `primary`. */
export function shardOfPrimary(primary: string, shard: number): string {
  return shard === 0 ? primary : `${primary}#${shard}`;
}

/** 0 to n − 1. */
export function shardNumbers(shards: number): number[] {
  return Array.from({ length: shards }, (_, i) => i);
}
