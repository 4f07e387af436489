// `baton/client`: a typed client of `baton serve` (docs/server.md) over WebSocket or stdio.
//   const c = await BatonClient.connect('ws://127.0.0.1:7787/rpc', { token, WebSocket });
//   await c.initialize({ clientInfo: { name: 'my-tool', version: '1' } });
//   const { data } = await c.threadList({ limit: 10 });
export * from './protocol.gen.ts';
export { BatonRpcError, RpcConnection, type SpawnOptions, type Transport, type WebSocketOptions, stdioTransport, webSocketTransport } from './connection.ts';
