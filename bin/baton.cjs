#!/usr/bin/env node
// The one entry of the `baton` command. `baton hook ...` runs on every prompt of every
// agent session, so it loads only the small hook bundle (no commander, no SQLite), through
// its loader, which keeps V8's code cache of the bundle in the store's home;
// `session list` (what a resume picker runs) loads dist/list.cjs and `search` dist/search.cjs
// (through their loader and V8's code cache, dist/lean-boot.cjs), each handing anything it does not parse to the full command line; `serve` loads dist/serve.cjs (the app server),
// `mcp` dist/mcp.cjs (the MCP server), `pick` dist/pick.mjs (the terminal picker, Ink: ESM);
// everything else runs the full command line, dist/cli.cjs, through the same loader and its
// own code cache (docs/adr/0087; also `baton hook ... --help`: the payload comes on stdin, so
// a hook call never has it). The routing of every other command is a function a hook never
// calls: V8 only pre-parses it (docs/adr/0092).
'use strict';
if (process.argv[2] === 'hook' && !process.argv.includes('--help') && !process.argv.includes('-h')) {
  // The hook's loader, loaded as require() would but without its resolution: no lookup of
  // package.json, no stat or realpath of the file (~1 M instructions per hook; docs/adr/0018).
  // Its path by hand where the separator is '/' (__dirname is absolute and normal): the first
  // call of path.join compiles its normaliser, ~0.6 M instructions of every hook.
  const Module = module.constructor;
  const file =
    process.platform === 'win32' ? require('node:path').join(__dirname, '..', 'dist', 'hook-boot.cjs') : `${__dirname.slice(0, __dirname.lastIndexOf('/'))}/dist/hook-boot.cjs`;
  const boot = new Module(file, module);
  boot.load(file);
} else route();

function route() {
  const s = process.argv.indexOf('session');
  const first = process.argv[2] === '--home' ? process.argv[4] : process.argv[2];
  if (first === 'serve') require('../dist/serve.cjs');
  else if (first === 'mcp') require('../dist/mcp.cjs');
  // `pick` is an ES module with top-level await, which the full command line, run through V8's
  // code cache (a vm.Script, docs/adr/0087), cannot import(): routed here whatever options precede it.
  else if (command() === 'pick') import(require('node:url').pathToFileURL(require('node:path').join(__dirname, '..', 'dist', 'pick.mjs')).href);
  else if (s >= 2 && process.argv[s + 1] === 'list') require('../dist/lean-boot.cjs').boot('list');
  else if (first === 'search') require('../dist/lean-boot.cjs').boot('search');
  else require('../dist/lean-boot.cjs').boot('cli');
}

// The command after the global options (--home DIR, --home=DIR, --json, --quiet).
function command() {
  let at = 2;
  while (at < process.argv.length) {
    const a = process.argv[at];
    if (a === '--home') at += 2;
    else if (a.startsWith('--home=') || a === '--json' || a === '--quiet') at++;
    else break;
  }
  return process.argv[at];
}
