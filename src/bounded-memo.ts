/**
 * Values an isolate learned from a slower source (a D1 row, a Durable Object's index version) and trusts for a bounded
 * time. Past `refreshAfterMs` a value is still answered while one refresh runs in the background, kept alive by the
 * request that noticed (`waitUntil`): under steady traffic no request waits on the source, and concurrent requests never
 * send it a herd of identical lookups. Past `trustMs` (or asked `fresh`) the value is looked up before answering, so
 * nothing answered is older than `trustMs`. A value looked up again and found `same` keeps its first object, so state
 * keyed by that object's identity stays valid.
 */
export class BoundedMemo<T> {
  readonly #entries = new Map<string, { value: T; learnedAt: number; refreshing: boolean }>();

  constructor(
    private readonly trustMs: number,
    private readonly refreshAfterMs: number,
    private readonly same: (known: T, found: T) => boolean = Object.is,
  ) {}

  /** The value of `key`: remembered while trusted, else from `lookup` (which remembers it; a failed lookup remembers nothing). */
  async get(
    key: string,
    lookup: () => Promise<T>,
    options: { fresh?: boolean; waitUntil?: (promise: Promise<unknown>) => void } = {},
  ): Promise<T> {
    const known = options.fresh ? undefined : this.trusted(key, lookup, options.waitUntil);
    return known !== undefined ? known : this.#learn(key, lookup);
  }

  /**
   * The value of `key` while it is trusted, at once (nothing to wait on), its background refresh started as by `get`;
   * undefined where `get` would wait on `lookup`.
   */
  trusted(key: string, lookup: () => Promise<T>, waitUntil?: (promise: Promise<unknown>) => void): T | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    const age = Date.now() - entry.learnedAt;
    if (age >= this.trustMs) return undefined;
    if (age >= this.refreshAfterMs && !entry.refreshing && waitUntil) {
      entry.refreshing = true;
      waitUntil(
        this.#learn(key, lookup).catch(() => {
          entry.refreshing = false; // a later request tries again; the value expires at trustMs meanwhile
        }),
      );
    }
    return entry.value;
  }

  /** Remembers `value` as learned now. */
  set(key: string, value: T): void {
    const known = this.#entries.get(key)?.value;
    this.#entries.set(key, {
      value: known !== undefined && this.same(known, value) ? known : value,
      learnedAt: Date.now(),
      refreshing: false,
    });
  }

  async #learn(key: string, lookup: () => Promise<T>): Promise<T> {
    const found = await lookup();
    this.set(key, found);
    return this.#entries.get(key)?.value ?? found;
  }
}
