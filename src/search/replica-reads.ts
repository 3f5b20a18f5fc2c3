/**
 * Which copy of one index object answers a read: the replica of the region nearest to the request's continent
 * (`request.cf.continent`) among the app's replica regions, or the primary. This is the seam for any index object
 * (a whole app's, or one shard's): it takes the primary's object name and answers the stub to read from.
 *
 * A replica answers only when it has applied the index version the worker knows (`currentVersion`: learned from the
 * primary at most `VERSION_BOUND_MS` ago); otherwise the read goes to the primary and the replica catches up. So an
 * answer served by a replica is never older than what the primary answered `VERSION_BOUND_MS` before.
 */
import type { Env } from '../env';
import { replicaName, type ReplicaRegion } from './replica-regions';
import type { SearchAppObject } from './search-app-object';
import { objectId } from './shards';

/** Where reads of an index object go: the app's replica regions and the continent the request came from. */
export interface ReadPlacement {
  regions: readonly ReplicaRegion[];
  continent?: string;
}

/** A replica to read from, with its region and name. */
export interface ReadTarget {
  stub: DurableObjectStub<SearchAppObject>;
  region: ReplicaRegion;
  name: string;
}

/**
 * The replica of the index object `primaryName` in `region` (created there on first use), the region nearest to the
 * request (`nearestReplicaRegion`). A replica is created with the region as its location hint (which only counts when
 * the object is created: a replica stays where it was first placed).
 */
export function replicaTarget(env: Env, primaryName: string, region: ReplicaRegion): ReadTarget {
  const name = replicaName(primaryName, region);
  return { stub: env.SEARCH_APP.get(objectId(env.SEARCH_APP, name), { locationHint: region }), region, name };
}
