// Strict UTF-8 decoding without TextDecoder: constructing the first TextDecoder costs a hook
// process the compiling of Node's encoding module functions (~0.9 M instructions,
// docs/adr/0018); node:buffer's isUtf8 (simdutf) is loaded at start already.
import { isUtf8 } from 'node:buffer';

/**
 * new TextDecoder('utf-8', { fatal: true }).decode(bytes): the text, a leading byte order mark
 * dropped; a TypeError (TextDecoder's message) when the bytes are not well-formed UTF-8.
 */
export function decodeUtf8Strict(bytes: Buffer): string {
  if (!isUtf8(bytes)) throw new TypeError('The encoded data was not valid for encoding utf-8');
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return bytes.toString('utf8', bom ? 3 : 0);
}
