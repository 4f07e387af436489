// Stands in for node:child_process in the browser bundle: the page never spawns a server.
export function spawn(): never {
  throw new Error('baton web page: the stdio transport is not available in a browser');
}
