// The one escaping routine for every wrapper baton renders (refs, the pointer context,
// frozen contexts): `&` first, then `<`, so a body can neither close a wrapper nor forge one.
export function escapeBody(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

export function unescapeBody(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&amp;/g, '&');
}

/** Attribute values: additionally escape quotes so an attribute cannot be broken out of. */
export function escapeAttr(text: string): string {
  return escapeBody(text).replace(/"/g, '&quot;').replace(/>/g, '&gt;');
}
