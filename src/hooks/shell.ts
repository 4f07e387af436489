// POSIX shell quoting for the command lines baton prints or writes (PUBLISHER=, hook entries).
// Pure. A word of safe characters stays bare; anything else is single-quoted.
const SAFE = /^[A-Za-z0-9_/.,:@%+=-]+$/;

export function shellQuote(word: string): string {
  if (word !== '' && SAFE.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export function shellJoin(words: string[]): string {
  return words.map(shellQuote).join(' ');
}
