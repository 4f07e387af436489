// The POSIX shim `.baton/hooks/<provider>` that project and local scope entries call (hooks.md,
// Shim): a file a team commits, so it names no machine's paths. It finds baton via
// $BATON_BIN, the repo's node_modules/.bin/baton, then PATH; when none is there it says so on
// stderr and exits 0 (a hook never breaks the agent). Pure: returns the text.
export function shimText(provider: string): string {
  return `#!/bin/sh
# baton hook shim for ${provider}, written by \`baton install ${provider}\`. Commit it with the
# settings file: it names no machine's paths. It finds baton via $BATON_BIN, this repo's
# node_modules/.bin/baton, then PATH, and runs \`baton hook ${provider}\` with the payload on stdin.
root=$(CDPATH= cd -- "$(dirname -- "$0")/../.." 2>/dev/null && pwd)
if [ -n "$BATON_BIN" ] && [ -x "$BATON_BIN" ]; then exec "$BATON_BIN" hook ${provider} "$@"; fi
if [ -n "$root" ] && [ -x "$root/node_modules/.bin/baton" ]; then exec "$root/node_modules/.bin/baton" hook ${provider} "$@"; fi
if command -v baton >/dev/null 2>&1; then exec baton hook ${provider} "$@"; fi
echo "baton: hook ${provider}: baton not found (set BATON_BIN, install baton in this repo, or put it on PATH); hook skipped" >&2
exit 0
`;
}
