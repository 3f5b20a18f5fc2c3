// Types of compare.mjs for the TypeScript callers (the scripts project's tests).
export interface CaseOutcome {
  kind: string;
  query: string;
  set?: string;
  /** 1-based rank of the first acceptable answer in `ranked`, 0 when none is there. */
  rank: number;
  ranked: string[];
}
export interface MovedCase {
  kind: string;
  query: string;
  set?: string;
  from: number;
  to: number;
}
export function savedOutcomes(outcomes: CaseOutcome[]): CaseOutcome[];
export function compareOutcomes(
  before: CaseOutcome[],
  after: CaseOutcome[],
): { compared: number; changedTop10: number; moved: MovedCase[] };
export function renderComparison(comparison: { compared: number; changedTop10: number; moved: MovedCase[] }): string;
