// The help texts of `baton serve` and `baton mcp`: one text each, printed by `baton serve
// --help` (dist/serve.cjs), `baton mcp --help` (dist/mcp.cjs) and `baton help serve|mcp`
// (the command line), so the three can never say different things. Plain strings, no imports.

/** Where the store is when no --home is given, as src/store/home.ts resolves it. */
const HOME_LINE = '--home <dir>     store root (else $BATON_HOME, else $XDG_STATE_HOME/baton, else ~/.local/state/baton)';

export const SERVE_HELP = `Usage: baton serve [--stdio] [--host H] [--port P] [--allow-remote] [--new-token] [--open] [--no-team]

The app server (docs/server.md): JSON-RPC 2.0 over stdio (one JSON object a line) or over a
WebSocket at ws://HOST:PORT/rpc, with GET /healthz, GET / (the web page) and POST /mcp (the
MCP tools over Streamable HTTP, docs/mcp.md). Every request but the page's own files carries
the token of <home>/server.token (Authorization: Bearer T).

Options:
  --stdio          serve one client on stdin/stdout (logs go to stderr)
  --host <host>    address to bind (default 127.0.0.1; anything but loopback needs --allow-remote)
  --port <port>    port (default 7787; 0 picks a free one)
  --allow-remote   allow binding a non-loopback address
  --new-token      replace <home>/server.token with a new random token
  --open           print the page's URL with the token (?token=T), to open in a browser
  --no-team        do not run the team replicator (docs/team.md) even if this home joined a team
  ${HOME_LINE}
  -h, --help       this help
`;

export const MCP_HELP = `Usage: baton mcp [--home <dir>]

baton's MCP server on stdio (docs/mcp.md): the tools pointer_get, pointer_publish,
context_append, session_list, session_log, ref_capture, ref_list and search, and the
resources baton://session/{id}/context and baton://session/{id}/pointer. An agent's MCP
configuration spawns it (\`baton install PROVIDER --aspects mcp\` adds it). A tool call that
names no session uses $BATON_SESSION, else the session whose episode the agent's hooks
opened in this directory. A message over 4 MiB on stdin is dropped with one
\`baton mcp: INPUT_TOO_LARGE\` line on stderr (and an error to its id); the server goes on.

Options:
  ${HOME_LINE}
  -h, --help       this help
`;
