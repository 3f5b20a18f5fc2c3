/**
 * Regions of read replicas: Cloudflare's Durable Object location hints, and which of them serve a request
 * from a continent (`request.cf.continent`). Cloudflare tells a request's continent, not its region, so North
 * America and Europe each have two near hints, East first (where most of their traffic comes from).
 */

/** The Durable Object location hints (https://developers.cloudflare.com/durable-objects/reference/data-location/). */
export const REPLICA_REGIONS = ['wnam', 'enam', 'sam', 'weur', 'eeur', 'apac', 'oc', 'afr', 'me'] as const;

export type ReplicaRegion = (typeof REPLICA_REGIONS)[number];

/**
 * The regions near enough to serve a continent, nearest first. A continent none of an app's regions is near
 * to reads from the primary (wherever it lives: Cloudflare placed it near the request that created it), so a
 * replica never sends a request further than it would go without replicas by much.
 */
const NEAR_REGIONS: Record<string, readonly ReplicaRegion[]> = {
  NA: ['enam', 'wnam'],
  SA: ['sam', 'enam'],
  EU: ['weur', 'eeur'],
  AF: ['afr', 'me', 'weur'],
  AS: ['apac', 'me'],
  OC: ['oc', 'apac'],
  AN: ['oc', 'sam'],
};

/** The app's region that serves a continent, or undefined: read from the primary. */
export function nearestReplicaRegion(continent: string | undefined, regions: readonly ReplicaRegion[]): ReplicaRegion | undefined {
  return (continent && NEAR_REGIONS[continent]?.find((region) => regions.includes(region))) || undefined;
}

/** The Durable Object name of an index object's replica in a region: `<primary name>@<region>`. */
export function replicaName(primaryName: string, region: ReplicaRegion): string {
  return `${primaryName}@${region}`;
}

/** The region of a replica's name, when it is one. */
export function regionOfReplica(name: string): string | undefined {
  const at = name.lastIndexOf('@');
  return at < 0 ? undefined : name.slice(at + 1);
}
