// The hook entry bundle (dist/hook.cjs): `baton hook PROVIDER` with the payload on stdin.
// Loads no schema library, no commander, no SQLite. Owned by the hooks work.
process.stderr.write('baton: hook: not wired yet\n');
