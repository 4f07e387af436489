// `npm run schemas`: writes schemas/<name>.schema.json from src/schemas (the one schema source).
// Stale files of formats that no longer exist are removed, so schemas/ is exactly the list.
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { renderJsonSchemas } from '../src/schemas/index.ts';
import { renderClientTypes, renderProtocolSchemas } from '../src/schemas/protocol-render.ts';

const dir = resolve(import.meta.dirname, '..', 'schemas');
fs.mkdirSync(dir, { recursive: true });
const files = renderJsonSchemas();
for (const name of fs.readdirSync(dir)) {
  if (name.endsWith('.schema.json') && !(name in files)) fs.unlinkSync(join(dir, name));
}
for (const [name, text] of Object.entries(files)) {
  const path = join(dir, name);
  const old = fs.existsSync(path) ? fs.readFileSync(path, 'utf8') : null;
  if (old !== text) {
    fs.writeFileSync(path, text);
    console.log(`wrote schemas/${name}`);
  }
}

// The app server's protocol: schemas/protocol/*.schema.json and the typed client's generated half.
const protoDir = join(dir, 'protocol');
fs.mkdirSync(protoDir, { recursive: true });
const proto = renderProtocolSchemas();
for (const name of fs.readdirSync(protoDir)) {
  if (name.endsWith('.schema.json') && !(name in proto)) fs.unlinkSync(join(protoDir, name));
}
const writeIfChanged = (path: string, text: string, shown: string): void => {
  const old = fs.existsSync(path) ? fs.readFileSync(path, 'utf8') : null;
  if (old !== text) {
    fs.writeFileSync(path, text);
    console.log(`wrote ${shown}`);
  }
};
for (const [name, text] of Object.entries(proto)) writeIfChanged(join(protoDir, name), text, `schemas/protocol/${name}`);
writeIfChanged(resolve(import.meta.dirname, '..', 'src', 'client', 'protocol.gen.ts'), renderClientTypes(), 'src/client/protocol.gen.ts');
