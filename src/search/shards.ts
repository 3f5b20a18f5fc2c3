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

/** Durable Object ids by name, per namespace binding (at most `MAX_REMEMBERED_IDS` names each, then afresh). */
const idsByNamespace = new WeakMap<object, Map<string, DurableObjectId>>();
const MAX_REMEMBERED_IDS = 1_024;

/**
 * The id of the object named `name`, remembered per isolate: `idFromName` hashes the name on every call (about 21,000
 * instructions of workerd's, once per search), and an id, unlike a stub, holds nothing of the request that made it.
 */
export function objectId<T extends Rpc.DurableObjectBranded | undefined>(
  namespace: DurableObjectNamespace<T>,
  name: string,
): DurableObjectId {
  let ids = idsByNamespace.get(namespace);
  if (!ids) idsByNamespace.set(namespace, (ids = new Map()));
  let id = ids.get(name);
  if (!id) {
    if (ids.size >= MAX_REMEMBERED_IDS) ids.clear();
    ids.set(name, (id = namespace.idFromName(name)));
  }
  return id;
}

/** 0 to n − 1. */
export function shardNumbers(shards: number): number[] {
  return Array.from({ length: shards }, (_, i) => i);
}
