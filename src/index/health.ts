// Index health for `baton doctor` (index.md). Owned by the index work.
export interface IndexHealth {
  present: boolean;
  ok: boolean;
  conflicts: { session: string; detail: string }[];
  problems: { message: string; fix: string }[];
  bytes: number;
}

export function indexHealth(_home: string): IndexHealth {
  return { present: false, ok: true, conflicts: [], problems: [], bytes: 0 };
}
