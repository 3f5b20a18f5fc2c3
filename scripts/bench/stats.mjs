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
