#!/usr/bin/env node
// The one entry of the `baton` command. `baton hook ...` runs on every prompt of every
// agent session, so it loads only the small hook bundle (no commander, no SQLite);
// everything else loads the full command line.
'use strict';
if (process.argv[2] === 'hook') require('../dist/hook.cjs');
else require('../dist/cli.cjs');
