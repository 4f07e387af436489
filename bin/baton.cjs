#!/usr/bin/env node
// The one entry of the `baton` command. `baton hook ...` runs on every prompt of every
// agent session, so it loads only the small hook bundle (no commander, no SQLite);
// `session list` (what a resume picker runs) loads dist/list.cjs, which hands anything it
// does not parse to the full command line; `serve` loads dist/serve.cjs (the app server);
// everything else loads the full command line.
'use strict';
const s = process.argv.indexOf('session');
const serve = process.argv[2] === 'serve' || (process.argv[2] === '--home' && process.argv[4] === 'serve');
if (process.argv[2] === 'hook') require('../dist/hook.cjs');
else if (serve) require('../dist/serve.cjs');
else if (s >= 2 && process.argv[s + 1] === 'list') require('../dist/list.cjs');
else require('../dist/cli.cjs');
