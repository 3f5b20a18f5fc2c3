/**
 * The edge cache of public search and suggest answers: the Cache API (`caches.default`) of the data centre
 * the request reached, keyed by the request's canonical form and the search app's index version, so a
 * repeated query answers without reaching any Durable Object and a change invalidates through the version.
 *
 * In front of it, each isolate keeps the answers it saw last for the version it trusts (`AnswerMemo`, per app):
 * a repeat within the same isolate costs neither a cache lookup nor a Durable Object call, and a repeat of the very
 * same GET URL not even parsing the request again (`rememberedAnswer`, with public-reads.ts's memory of URLs).
 *
 * The worker learns the version from the Durable Object (`indexVersion`, a call without engine work, or
 * beside every answer it computes) and trusts it for `VERSION_BOUND_MS` per isolate: a change is seen by
 * cached answers at most that long after the object applied it. `caches.default` stores nothing on
 * `workers.dev` hosts (custom domains only), so there it is not asked: a repeat is answered from the memory of the
 * isolate it reaches, or else from the Durable Object's own memory of answers.
 */
import { BoundedMemo } from '../bounded-memo';
import { logError } from '../errors';
import { AnswerMemo, type VersionedAnswer } from './answers';
import { compressEnd, type CompressedEnd } from './gzip-splice';

/** How long an isolate answers from the index version it last learned before asking the object again. */
export const VERSION_BOUND_MS = 1_000;
/** From this age on, the first request to use a version asks the object again in the background (`BoundedMemo`). */
const VERSION_REFRESH_MS = 750;
/** Entries of one version never change; those of old versions are no longer asked for and age out. */
const ENTRY_CACHE_CONTROL = 'public, max-age=86400';

/** `HIT`: from the edge cache; `MISS`: computed and stored; `BYPASS`: computed for a caller that asked for a fresh answer or cannot be cached. */
export type EdgeCacheStatus = 'HIT' | 'MISS' | 'BYPASS';

export interface EdgeAnswer {
  json: string;
  cache: EdgeCacheStatus;
  /** `answerEnd(json)` compressed, when this isolate has answered it before (a repeat: `HIT`). */
  compressedEnd?: CompressedEnd;
}

/**
 * The end of the answer the routes send around a result: the result and the brace that closes the answer object,
 * whose head (status, requestId, time) differs per request. Compressed once per remembered answer.
 */
export const answerEnd = (json: string) => `${json}}`;

export interface EdgeCacheRequest {
  /** The request's URL: entries live under its origin, the deployment's own host. */
  url: string;
  /** `<tenant>/<code>/<app row id>`: where the app's answers are remembered and cached. */
  app: string;
  /** `searchKey` / `suggestKey` of the request; asked only of a cacheable request (POST answers need no key). */
  key(): string;
  /** GET answers are looked up and stored; POST answers neither. */
  cacheable: boolean;
  /** The caller sent `Cache-Control: no-cache`: no lookup in any cache, but the fresh answer is stored. */
  fresh: boolean;
  waitUntil(promise: Promise<unknown>): void;
}

/** Keeps a background refresh of the index version alive past the request that started it. */
export type WaitUntil = (promise: Promise<unknown>) => void;

/** Where answers come from on a miss: the search app's Durable Object. */
export interface AnswerSource {
  /**
   * The app's primary object name (shard 0's): its index version is remembered under it, once per isolate for the edge
   * cache and the read replicas' bound alike (apps deleted and created again share it; their answers do not).
   */
  name: string;
  indexVersion(): Promise<number>;
  answer(fresh: boolean): Promise<VersionedAnswer>;
}

const knownVersions = new BoundedMemo<number>(VERSION_BOUND_MS, VERSION_REFRESH_MS);
/**
 * Apps whose answers an isolate remembers (the least recently created go first), and characters per app, compressed
 * ends' bytes included: at most 16 M in all. Few apps at a time, each with room for a hundred or more answers of
 * typical size (10–30 KB): an app's recurring queries stay in memory instead of evicting one another.
 */
const ISOLATE_APPS = 8;
const ISOLATE_CHARS_PER_APP = 2_000_000;

/**
 * An answer this isolate remembers, and its end compressed once it was asked for again (a question asked once is
 * never compressed). The compressed end's bytes count as characters towards the bound (about a quarter more).
 */
interface RememberedAnswer {
  json: string;
  compressedEnd?: CompressedEnd;
  compressing?: boolean;
}

const rememberedChars = (answer: RememberedAnswer) => answer.json.length + (answer.compressedEnd?.deflated.length ?? 0);

const isolateAnswers = new Map<string, AnswerMemo<RememberedAnswer>>();

function isolateMemo(app: string): AnswerMemo<RememberedAnswer> {
  let memo = isolateAnswers.get(app);
  if (!memo) {
    for (const oldest of isolateAnswers.keys()) {
      if (isolateAnswers.size < ISOLATE_APPS) break;
      isolateAnswers.delete(oldest);
    }
    isolateAnswers.set(app, (memo = new AnswerMemo<RememberedAnswer>(ISOLATE_CHARS_PER_APP, rememberedChars)));
  }
  return memo;
}

/**
 * The remembered answer of `key` as a `HIT`; on its first repeat its end is compressed in the background, for the next
 * ones, and the answer with it counted anew in the app's memory (which may then let older answers go).
 */
function repeated(memo: AnswerMemo<RememberedAnswer>, key: string, answer: RememberedAnswer, waitUntil?: WaitUntil): EdgeAnswer {
  if (!answer.compressedEnd && !answer.compressing && waitUntil) {
    answer.compressing = true;
    waitUntil(
      compressEnd(answerEnd(answer.json)).then(
        (compressedEnd) => memo.update(key, answer, { json: answer.json, compressedEnd }),
        (err: unknown) => logError('compressing a remembered answer', err),
      ),
    );
  }
  return { json: answer.json, cache: 'HIT', compressedEnd: answer.compressedEnd };
}

/**
 * The answer this isolate remembers for `key` at the index version it trusts (`currentVersion`), without reaching
 * the Cache API or the Durable Object; undefined when it has none.
 */
export async function rememberedAnswer(
  app: string,
  key: string,
  source: Pick<AnswerSource, 'name' | 'indexVersion'>,
  waitUntil?: WaitUntil,
): Promise<EdgeAnswer | undefined> {
  return isolateAnswers.has(app) ? rememberedAnswerAt(app, key, await currentVersion(source, false, waitUntil), waitUntil) : undefined;
}

/** The answer this isolate remembers for `key` at `version`, at once; undefined when it has none. */
export function rememberedAnswerAt(app: string, key: string, version: number, waitUntil?: WaitUntil): EdgeAnswer | undefined {
  const memo = isolateAnswers.get(app);
  const answer = memo?.get(version, key);
  return memo && answer && repeated(memo, key, answer, waitUntil);
}

/** `currentVersion` while it is trusted, at once; undefined where `currentVersion` would wait on the object. */
export function trustedVersion(source: Pick<AnswerSource, 'name' | 'indexVersion'>, waitUntil?: WaitUntil): number | undefined {
  return knownVersions.trusted(source.name, () => source.indexVersion(), waitUntil);
}

/**
 * The app's index version as this isolate knows it: learned from `source` at most `VERSION_BOUND_MS` ago, or now
 * when `fresh`. Read replicas answer only at this version or newer. With `waitUntil`, a version older than
 * `VERSION_REFRESH_MS` is asked for again in the background, so steady traffic never waits on the object for it.
 */
export function currentVersion(source: Pick<AnswerSource, 'name' | 'indexVersion'>, fresh = false, waitUntil?: WaitUntil): Promise<number> {
  return knownVersions.get(source.name, () => source.indexVersion(), { fresh, waitUntil });
}

/** Where the Cache API keeps the answer of a request at an index version. */
export function edgeCacheUrl(origin: string, app: string, version: number, key: string): string {
  const url = new URL(`/__edge-cache/${app}/v${version}`, origin);
  url.searchParams.set('r', key);
  return url.href;
}

/** Cloudflare keeps no Cache API entries for `*.workers.dev` hosts: there a lookup cannot hit and a put is dropped. */
function keepsEntries(url: URL): boolean {
  return !url.hostname.endsWith('.workers.dev');
}

/**
 * The serialized answer of a request, from the edge cache when it holds the current version's, else from `source`.
 * On `workers.dev` the Cache API is skipped (it stores nothing there); the isolate's memory still answers repeats.
 */
export async function answerThroughEdgeCache(request: EdgeCacheRequest, source: AnswerSource): Promise<EdgeAnswer> {
  if (!request.cacheable) return { json: (await source.answer(request.fresh)).json, cache: 'BYPASS' };
  const { app } = request;
  const url = new URL(request.url);
  const { origin } = url;
  const key = request.key();
  const memo = isolateMemo(app);
  const shared = keepsEntries(url);
  if (!request.fresh) {
    const version = await currentVersion(source, false, request.waitUntil);
    const remembered = memo.get(version, key);
    if (remembered) return repeated(memo, key, remembered, request.waitUntil);
    const cached = shared ? await caches.default.match(edgeCacheUrl(origin, app, version, key)) : undefined;
    if (cached) {
      const json = await cached.text();
      memo.set(version, key, { json });
      return { json, cache: 'HIT' };
    }
  }
  const answer = await source.answer(request.fresh);
  knownVersions.set(source.name, answer.version);
  if (answer.transient) return { json: answer.json, cache: 'BYPASS' };
  const status = request.fresh ? 'BYPASS' : 'MISS';
  // An answer of this version that this isolate remembers was stored by it or read from the edge cache: it stays there,
  // and a recomputed one differs in its `time` only, so a fresh request does not store it again.
  if (!memo.add(answer.version, key, { json: answer.json })) return { json: answer.json, cache: status };
  if (!shared) return { json: answer.json, cache: status };
  const entry = new Response(answer.json, { headers: { 'Content-Type': 'application/json', 'Cache-Control': ENTRY_CACHE_CONTROL } });
  request.waitUntil(caches.default.put(edgeCacheUrl(origin, app, answer.version, key), entry));
  return { json: answer.json, cache: status };
}
