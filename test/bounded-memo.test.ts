import { afterEach, describe, expect, it, vi } from 'vitest';
import { BoundedMemo } from '../src/bounded-memo';

let now = 1_000_000;
afterEach(() => vi.restoreAllMocks());

/** A source that answers `value()` and counts its lookups; a lookup stays open until `release()`. */
function source(value: () => number | Error) {
  const open: Array<() => void> = [];
  const counter = {
    lookups: 0,
    lookup: () => {
      counter.lookups++;
      return new Promise<number>((resolve, reject) =>
        open.push(() => {
          const answer = value();
          if (answer instanceof Error) reject(answer);
          else resolve(answer);
        }),
      );
    },
    release: () => open.splice(0).forEach((settle) => settle()),
  };
  return counter;
}

/** Versions trusted for 1 s and refreshed from 750 ms on, their source (`state.current`) and the background work started. */
function versionMemo() {
  vi.spyOn(Date, 'now').mockImplementation(() => now);
  const state = { current: 1 };
  const background: Array<Promise<unknown>> = [];
  return {
    memo: new BoundedMemo<number>(1_000, 750),
    state,
    versions: source(() => state.current),
    background,
    waitUntil: (promise: Promise<unknown>) => background.push(promise),
  };
}

describe('BoundedMemo', () => {
  it('answers a trusted value at once, refreshes it once in the background past refreshAfter, and waits past trust', async () => {
    const { memo, state, versions, background, waitUntil } = versionMemo();

    const first = memo.get('app', versions.lookup, { waitUntil });
    versions.release();
    expect(await first).toBe(1);

    now += 800; // past refreshAfter, still trusted: the old value at once, and one refresh for all callers
    state.current = 2;
    const concurrent = await Promise.all([1, 2, 3].map(() => memo.get('app', versions.lookup, { waitUntil })));
    expect(concurrent).toEqual([1, 1, 1]);
    expect([versions.lookups, background.length]).toEqual([2, 1]);
    versions.release();
    await Promise.all(background);
    expect(await memo.get('app', versions.lookup, { waitUntil })).toBe(2);

    now += 1_000; // past trust: no caller is answered the old value
    state.current = 3;
    const expired = memo.get('app', versions.lookup, { waitUntil });
    versions.release();
    expect(await expired).toBe(3);

    const fresh = memo.get('app', versions.lookup, { fresh: true });
    state.current = 4;
    versions.release();
    expect(await fresh).toBe(4);
    expect(versions.lookups).toBe(4);
  });

  it('keeps the value when a background refresh fails, tries again later, and remembers no failed lookup', async () => {
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    const memo = new BoundedMemo<number>(1_000, 500);
    let answer: number | Error = 7;
    const rows = source(() => answer);
    const background: Array<Promise<unknown>> = [];
    const waitUntil = (promise: Promise<unknown>) => background.push(promise);

    const first = memo.get('row', rows.lookup);
    rows.release();
    await first;
    now += 600;
    answer = new Error('D1 unavailable');
    expect(await memo.get('row', rows.lookup, { waitUntil })).toBe(7);
    rows.release();
    await Promise.all(background);
    expect(await memo.get('row', rows.lookup, { waitUntil })).toBe(7);
    expect(rows.lookups).toBe(3); // the failed refresh let the next request try again

    const missing = memo.get('other', rows.lookup);
    rows.release();
    await Promise.all(background);
    await expect(missing).rejects.toThrow('D1 unavailable');
    answer = 8;
    const found = memo.get('other', rows.lookup);
    rows.release();
    expect(await found).toBe(8);
  });

  it('answers a trusted value at once, without waiting, and nothing where get would wait', async () => {
    const { memo, state, versions, background, waitUntil } = versionMemo();

    expect(memo.trusted('app', versions.lookup, waitUntil)).toBeUndefined();
    expect(versions.lookups).toBe(0);
    const first = memo.get('app', versions.lookup);
    versions.release();
    await first;
    expect(memo.trusted('app', versions.lookup, waitUntil)).toBe(1);

    now += 800; // past refreshAfter: the value at once, and one refresh in the background, as get does
    state.current = 2;
    expect([1, 2].map(() => memo.trusted('app', versions.lookup, waitUntil))).toEqual([1, 1]);
    expect([versions.lookups, background.length]).toEqual([2, 1]);
    versions.release();
    await Promise.all(background);
    expect(memo.trusted('app', versions.lookup, waitUntil)).toBe(2);

    now += 1_000; // past trust: nothing at once, and no lookup started
    expect(memo.trusted('app', versions.lookup, waitUntil)).toBeUndefined();
    expect(versions.lookups).toBe(2);
  });

  it('keeps the first object of a value looked up again unchanged', async () => {
    const memo = new BoundedMemo<{ id: number; name: string }>(1_000, 500, (a, b) => JSON.stringify(a) === JSON.stringify(b));
    const first = await memo.get('app', async () => ({ id: 1, name: 'shop' }), { fresh: true });
    expect(await memo.get('app', async () => ({ id: 1, name: 'shop' }), { fresh: true })).toBe(first);
    const renamed = await memo.get('app', async () => ({ id: 1, name: 'store' }), { fresh: true });
    expect(renamed).not.toBe(first);
    expect(renamed.name).toBe('store');
  });
});
