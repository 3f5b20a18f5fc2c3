// Small numeric helpers for the benchmark.

/** The p-th percentile (0..100) of samples, nearest rank. */
export function percentile(samples, p) {
  if (!samples.length) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function elapsedMs(start) {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export const now = () => process.hrtime.bigint();

export const MB = 1024 * 1024;

export function fixed(value, digits = 1) {
  return Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}

export function thousands(value) {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a';
}

/**
 * JS heap and ArrayBuffer bytes once a full gc has settled (needs node --expose-gc): typed arrays live outside
 * `heapUsed` but count in an isolate's 128 MB. A reading right after one `gc()` still counted ~14 MB of array buffers
 * an index load had dropped (V8 frees them on a background thread): gc, let the event loop turn, and read again until
 * two readings agree within 64 KB (at most 20 rounds).
 */
export async function memoryAfterGc() {
  let last;
  for (let round = 0; round < 20; round++) {
    globalThis.gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const { heapUsed, arrayBuffers } = process.memoryUsage();
    const reading = { heapUsed, arrayBuffers };
    if (last && Math.abs(reading.heapUsed - last.heapUsed) + Math.abs(reading.arrayBuffers - last.arrayBuffers) < 64 * 1024) return reading;
    last = reading;
  }
  return last;
}
