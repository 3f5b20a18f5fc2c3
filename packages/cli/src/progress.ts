/** Progress of a long feed: a redrawn bar on a terminal, a plain line every few seconds in CI logs. */

/** Seconds between progress lines when stdout is not a terminal. */
const LINE_INTERVAL_MS = 5000;

export interface ProgressState {
  documents: number;
  rejected: number;
  /** Share of the input read, 0 to 1, when the input size is known. */
  fraction?: number;
}

/** Writes feed progress to `out`; `done()` ends the bar's line. */
export class Progress {
  readonly #out: NodeJS.WriteStream;
  readonly #started = Date.now();
  #lastLine = 0;

  constructor(out: NodeJS.WriteStream) {
    this.#out = out;
  }

  update(state: ProgressState): void {
    const now = Date.now();
    if (!this.#out.isTTY && now - this.#lastLine < LINE_INTERVAL_MS) return;
    this.#lastLine = now;
    const text = describe(state, (now - this.#started) / 1000);
    if (this.#out.isTTY) this.#out.write(`\r\x1b[2K${bar(state.fraction)} ${text}`);
    else this.#out.write(`${text}\n`);
  }

  done(): void {
    if (this.#out.isTTY) this.#out.write('\n');
  }
}

function describe(state: ProgressState, seconds: number): string {
  const rate = seconds > 0 ? state.documents / seconds : 0;
  const parts = [`${state.documents} documents`, `${Math.round(rate)}/s`];
  if (state.rejected) parts.push(`${state.rejected} rejected`);
  if (state.fraction && state.fraction > 0 && state.fraction < 1)
    parts.push(`ETA ${Math.ceil((seconds * (1 - state.fraction)) / state.fraction)} s`);
  return parts.join(', ');
}

function bar(fraction: number | undefined, width = 30): string {
  if (fraction === undefined) return '';
  const filled = Math.round(Math.min(1, fraction) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.floor(fraction * 100)}%`;
}
