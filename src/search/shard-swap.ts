/**
 * Changing which shards hold an app's live index as one step: a full feed's swap across shards and a re-shard.
 * Both are a two-phase commit over the shard objects: every shard of the new layout votes (`prepareSwap`), then
 * every shard commits the new generation, shard 0 last (`commitSwap`). Searches that meet shards of two
 * generations meanwhile ask the ones behind for the newer, which they make live first, so no answer mixes them.
 */
import { ApiError } from '../errors';
import type { DocumentRow, PreparedSwap, Reshard } from './app-storage';
import { othersShare, sumShares } from './engine';
import type { AppIndexConfig } from './app-object/live-index';
import { unwrap } from './outcome';
import type { SearchAppObject, SharedStatistics } from './search-app-object';
import { shardNumbers, shardOf, type ShardLayout } from './shards';

type ShardStub = DurableObjectStub<SearchAppObject>;

/** One app's shard objects as a swap reaches them. */
export interface SwappingShards {
  /** Shard 0's object name: the re-shard's coordinator, which a shard asks when the job died. */
  coordinator: string;
  shard(shard: number): ShardStub;
  shardName(shard: number): string;
  /** Told once shard 0 committed `layout`, before what follows the last commit. */
  committed(layout: ShardLayout): void;
}

/** Rows a re-shard moves per call. */
const RESHARD_PAGE = 1_000;
/** Catch-up rounds before live feeding waits for the last one, at most; fewer once a round moved at most RESHARD_SEAL_BELOW rows. */
const RESHARD_ROUNDS = 5;
const RESHARD_SEAL_BELOW = 1_000;
/** How long live feeding waits at most for a re-shard's last catch-up and swap (a job that dies meanwhile holds it no longer). */
const RESHARD_SEAL_MS = 30_000;

/**
 * Phase 1 of a cross-shard swap: every shard of the new layout votes; the first refusal's reason, or undefined. Shard 0
 * is told the layout `old` the swap replaces, so that its commit records what must follow (`UnsettledSwap`); in a move,
 * each shard the rows came from its sequence when the last catch-up began (`caughtUp`, by shard).
 */
export async function prepareSwap(
  app: SwappingShards,
  swap: PreparedSwap,
  old: ShardLayout,
  caughtUp: number[] = [],
): Promise<string | undefined> {
  const votes = await Promise.all(
    shardNumbers(swap.layout.shards).map(async (shard) => {
      const asked: PreparedSwap = {
        ...swap,
        ...(shard === 0 && { from: old }),
        ...(shard < caughtUp.length && { caughtUp: caughtUp[shard] }),
      };
      try {
        return await app.shard(shard).prepareSwap(asked, app.shardName(shard));
      } catch (error) {
        return { ok: false as const, message: `shard ${shard} did not answer: ${String(error)}` };
      }
    }),
  );
  const refusal = votes.find((vote) => !vote.ok);
  return refusal && !refusal.ok ? refusal.message : undefined;
}

/**
 * Phase 2: shard 0 records the decision (false, and nothing commits, when the cycle was cancelled or failed, or the move
 * dropped, since the votes), then every shard commits the new generation, shard 0 last; shards the new layout drops are
 * destroyed.
 */
export async function commitSwap(app: SwappingShards, swap: PreparedSwap, old: ShardLayout): Promise<boolean> {
  if (!(await app.shard(0).decideSwap(swap.layout.generation))) return false;
  const others = shardNumbers(swap.layout.shards).slice(1);
  await Promise.all(others.map((shard) => app.shard(shard).commitSwap(swap.layout.generation)));
  await app.shard(0).commitSwap(swap.layout.generation);
  app.committed(swap.layout);
  await afterLastCommit((shard) => app.shard(shard), old, swap.layout);
  return true;
}

/**
 * Moves the documents from the live `layout` to `shards` shards, atomically like a full feed's swap: every shard of
 * the new layout stages the rows routed to it (copied page by page from the live shards, then the rows changed
 * meanwhile, round after round), live feeding waits (its batches are retried) for the last catch-up, then the
 * two-phase commit makes the new layout live; shards it drops are destroyed. A refusal or failure before the
 * commit discards what was staged, the old layout staying live, and throws; 409 while a full feed is in progress.
 */
export async function reshardApp(
  app: SwappingShards,
  layout: ShardLayout,
  shards: number,
  config: AppIndexConfig,
  job: string,
): Promise<void> {
  const startedAt = Date.now();
  const generation = layout.generation + 1;
  const swap: PreparedSwap = { cycleId: -generation, layout: { shards, generation }, config, attempt: startedAt };
  // A swap to the next generation was decided (every shard voted; some may have committed) by a process that died: this
  // move's, when the job is retried, or another's (a full feed's, or this job's with another shard count). It is made
  // live first, as shard 0 voted for it; another's is followed by the job's retry, which moves from the layout it made live.
  const [decided, views] = await Promise.all([
    app.shard(0).vote(),
    Promise.all(shardNumbers(shards).map((shard) => app.shard(shard).shardView())),
  ]);
  const committed = views.some((view) => view.layout.generation === swap.layout.generation);
  if (decided?.layout.generation === swap.layout.generation && (decided.decided || committed)) {
    await commitSwap(app, decided, decided.from ?? layout);
    if (decided.cycleId === swap.cycleId && decided.layout.shards === shards) return;
    throw new Error(`a swap to generation ${swap.layout.generation} was made live first; the documents move at the retry`);
  }
  const reshard: Reshard = { id: swap.cycleId, shards, job, startedAt, coordinator: app.coordinator };
  unwrap(await app.shard(0).beginReshard(reshard));
  const targets = shardNumbers(shards);
  const sources = shardNumbers(layout.shards);
  try {
    // Shard 0 holds no cycle now (it refuses to move during one, and to start one during a move): a cycle another shard
    // holds up to its last id ended without that shard hearing of it, and does not stop the move.
    const cycles = await app.shard(0).cycles();
    await Promise.all(targets.slice(1).map(async (shard) => unwrap(await app.shard(shard).beginReshard(reshard, cycles))));
    let since = sources.map(() => -1);
    let moved = Infinity;
    for (let round = 0; round < RESHARD_ROUNDS && moved > RESHARD_SEAL_BELOW; round++) {
      const rounds = await Promise.all(sources.map((shard, i) => moveRows(app, shard, since[i], reshard)));
      since = rounds.map((r) => r.seq);
      moved = rounds.reduce((total, r) => total + r.moved, 0);
    }
    const leaving = { id: reshard.id, coordinator: app.coordinator, layout: swap.layout };
    await Promise.all(sources.map((shard) => app.shard(shard).seal(RESHARD_SEAL_MS, shard < shards ? undefined : leaving)));
    const last = await Promise.all(sources.map((shard, i) => moveRows(app, shard, since[i], reshard)));
    const refusal = await prepareSwap(
      app,
      swap,
      layout,
      last.map((round) => round.seq),
    );
    if (refusal) throw new ApiError(409, `the new shard layout was refused: ${refusal}`);
  } catch (error) {
    // Shard 0 first: once it decided the move (itself, every shard having voted while this job was slow, or lost an
    // answer) it is only committed, and no other shard may drop its vote: the job commits it too. Once shard 0 dropped
    // it every shard is told, whichever fails to answer (one that voted and missed it asks the coordinator at its lease's
    // end); shard 0 out of reach, none is.
    const dropped = await app
      .shard(0)
      .abortSwap(reshard.id)
      .catch(() => undefined);
    if (dropped) await Promise.allSettled([...new Set([...targets, ...sources])].map((shard) => app.shard(shard).abortSwap(reshard.id)));
    else if (dropped === false && (await commitSwap(app, swap, layout))) return;
    throw error;
  }
  if (!(await commitSwap(app, swap, layout))) throw new ApiError(409, 'the move was dropped before its swap was decided');
}

/** Moves one live shard's rows changed after `since` to the shards of the re-shard's layout; answers how many and the sequence read. */
async function moveRows(app: SwappingShards, source: number, since: number, reshard: Reshard): Promise<{ moved: number; seq: number }> {
  let after = '';
  let moved = 0;
  let seq: number | undefined;
  for (;;) {
    const page = await app.shard(source).movingRows(since, after, RESHARD_PAGE);
    // The sequence before the first page: changes after it are the next round's.
    seq ??= page.seq;
    if (page.refusals.length || page.droppedUpTo) {
      await Promise.all(
        shardNumbers(reshard.shards).map(async (target) =>
          unwrap(await app.shard(target).stageMoved(reshard.id, [], [], page.refusals, page.droppedUpTo)),
        ),
      );
    }
    if (!page.rows.length) return { moved, seq };
    const byShard = new Map<number, DocumentRow[]>();
    for (const row of page.rows) {
      const target = shardOf(row.id, reshard.shards);
      byShard.set(target, [...(byShard.get(target) ?? []), row]);
    }
    await Promise.all(
      [...byShard].map(async ([target, rows]) => {
        const used = new Set(rows.map((row) => row.vector));
        const vectors = page.vectors.filter((vector) => used.has(vector.hash));
        unwrap(await app.shard(target).stageMoved(reshard.id, rows, vectors));
      }),
    );
    moved += page.rows.length;
    after = page.rows[page.rows.length - 1].id;
  }
}

/**
 * What follows a cross-shard swap's last commit (shard 0's), whoever made it: the shards the new layout drops are
 * destroyed, and the new layout's shards exchange statistics, so each scores as one index of every document again;
 * then shard 0 forgets the swap's record. Done again by the next recovery check when whoever committed stopped before
 * (`SearchAppClient.settleSwap`); late, it leaves alone a dropped shard taken up again and a newer layout's statistics.
 */
export async function afterLastCommit(shard: (shard: number) => ShardStub, old: ShardLayout, layout: ShardLayout): Promise<boolean> {
  // Shard 0's record of this swap carries over the shards an earlier swap dropped whose follow-up never ran.
  const unsettled = await shard(0).unsettledSwap();
  const from = unsettled?.layout.generation === layout.generation ? Math.max(unsettled.from.shards, old.shards) : old.shards;
  const dropped = shardNumbers(from).slice(layout.shards);
  let held = false;
  if (dropped.length) {
    // Read before the drops: a cycle a dropped shard holds that shard 0 had ended by then does not keep it.
    const cycles = await shard(0).cycles();
    for (const number of dropped) {
      if (await shard(number).dropFromLayout(layout.generation, cycles)) continue;
      // Kept by a cycle, move or vote that may yet make it live, or never: the record stays for the next check.
      held ||= (await shard(number).shardView()).layout.generation < layout.generation;
    }
  }
  await exchangeStatistics(shardNumbers(layout.shards).map(shard), layout.generation);
  if (!held) await shard(0).swapSettled(layout.generation);
  return !held;
}

/**
 * The shards (in shard order) of the layout of `generation` hand each other what the others hold, summed
 * (`useOtherShards`). Nothing is handed when a shard answered from another generation (a swap is committing: its own
 * exchange follows), and a shard that reached another generation by the time it is handed its part ignores it.
 */
export async function exchangeStatistics(shards: ShardStub[], generation: number): Promise<void> {
  if (shards.length === 1) return;
  // RPC typing widens the typed arrays; the object declares SharedStatistics.
  const shares = (await Promise.all(shards.map((shard) => shard.statisticsShare()))) as SharedStatistics[];
  if (shares.some((shared) => shared.generation !== generation)) return;
  const summed = sumShares(shares.map((shared) => shared.share));
  await Promise.all(shards.map((shard, i) => shard.useOtherShards(othersShare(summed, shares[i].share), generation)));
}
