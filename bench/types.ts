// The shape of a benchmark case (bench.md). Each case is bench/cases/<name>.ts with a default export.
export interface BenchContext {
  /** --quick: the same case on smaller data, the whole bench under 60 s. */
  quick: boolean;
  /** A fresh temporary folder for this case. */
  tmp: string;
  /** Repo root (bin/baton.cjs, dist/ are built before the bench runs). */
  root: string;
}

export interface CaseResult {
  name: string;
  ours: number;
  baseline: number | null;
  ratio: number | null;
  unit: string;
  target: string;
  pass: boolean;
  details?: Record<string, unknown>;
}

export interface BenchCase {
  name: string;
  run(ctx: BenchContext): Promise<CaseResult | CaseResult[]>;
}
