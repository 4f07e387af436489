// The Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", 1980), the algorithm
// SQLite's FTS5 `porter` tokenizer applies to every ASCII token: search matches "retries" to
// "retry" and "backoff" to "backoffs" in the index, and this same function decides which
// events of a matching chunk really hold the query's words and which words a snippet marks.
// Pure. Words with characters outside a-z are returned as they are (FTS5 does the same).

const isCons = (w: string, i: number): boolean => {
  const c = w[i];
  if ('aeiou'.includes(c)) return false;
  if (c === 'y') return i === 0 || !isCons(w, i - 1);
  return true;
};

/** m: the number of vowel-consonant sequences in w[0..end). */
function measure(w: string, end: number): number {
  let n = 0;
  let i = 0;
  while (i < end && isCons(w, i)) i++;
  while (i < end) {
    while (i < end && !isCons(w, i)) i++;
    if (i >= end) break;
    n++;
    while (i < end && isCons(w, i)) i++;
  }
  return n;
}

const hasVowel = (w: string, end: number): boolean => {
  for (let i = 0; i < end; i++) if (!isCons(w, i)) return true;
  return false;
};

const doubleCons = (w: string): boolean => w.length >= 2 && w[w.length - 1] === w[w.length - 2] && isCons(w, w.length - 1);

/** *o: the stem ends cvc, the last c not w, x or y. */
const cvc = (w: string, end: number): boolean => {
  if (end < 3 || !isCons(w, end - 1) || isCons(w, end - 2) || !isCons(w, end - 3)) return false;
  const c = w[end - 1];
  return c !== 'w' && c !== 'x' && c !== 'y';
};

/** Replaces suffix `s` by `r` when the stem before it has measure > m; true when `s` matched (replaced or not). */
function rule(w: { s: string }, s: string, r: string, m: number): boolean {
  if (!w.s.endsWith(s)) return false;
  const stem = w.s.length - s.length;
  if (measure(w.s, stem) > m) w.s = w.s.slice(0, stem) + r;
  return true;
}

const STEP2: [string, string][] = [
  ['ational', 'ate'], ['tional', 'tion'], ['enci', 'ence'], ['anci', 'ance'], ['izer', 'ize'], ['bli', 'ble'],
  ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous'], ['ization', 'ize'], ['ation', 'ate'],
  ['ator', 'ate'], ['alism', 'al'], ['iveness', 'ive'], ['fulness', 'ful'], ['ousness', 'ous'], ['aliti', 'al'],
  ['iviti', 'ive'], ['biliti', 'ble'], ['logi', 'log'],
];
const STEP3: [string, string][] = [['icate', 'ic'], ['ative', ''], ['alize', 'al'], ['iciti', 'ic'], ['ical', 'ic'], ['ful', ''], ['ness', '']];
const STEP4 = ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ion', 'ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'];

/** Stems already computed: search stems every word of every candidate event, and a vocabulary repeats. */
const STEMS = new Map<string, string>();
const STEMS_MAX = 50_000;

export function porterStem(word: string): string {
  if (word.length <= 2) return word;
  const known = STEMS.get(word);
  if (known !== undefined) return known;
  const stem = stemOf(word);
  if (STEMS.size >= STEMS_MAX) STEMS.clear();
  STEMS.set(word, stem);
  return stem;
}

function stemOf(word: string): string {
  if (!/^[a-z]+$/.test(word)) return word;
  const w = { s: word };
  // Step 1a
  if (w.s.endsWith('sses')) w.s = w.s.slice(0, -2);
  else if (w.s.endsWith('ies')) w.s = w.s.slice(0, -2);
  else if (!w.s.endsWith('ss') && w.s.endsWith('s')) w.s = w.s.slice(0, -1);
  // Step 1b
  let extra = false;
  if (w.s.endsWith('eed')) {
    if (measure(w.s, w.s.length - 3) > 0) w.s = w.s.slice(0, -1);
  } else if (w.s.endsWith('ed') && hasVowel(w.s, w.s.length - 2)) {
    w.s = w.s.slice(0, -2);
    extra = true;
  } else if (w.s.endsWith('ing') && hasVowel(w.s, w.s.length - 3)) {
    w.s = w.s.slice(0, -3);
    extra = true;
  }
  if (extra) {
    if (w.s.endsWith('at') || w.s.endsWith('bl') || w.s.endsWith('iz')) w.s += 'e';
    else if (doubleCons(w.s) && !/[lsz]$/.test(w.s)) w.s = w.s.slice(0, -1);
    else if (measure(w.s, w.s.length) === 1 && cvc(w.s, w.s.length)) w.s += 'e';
  }
  // Step 1c
  if (w.s.endsWith('y') && hasVowel(w.s, w.s.length - 1)) w.s = `${w.s.slice(0, -1)}i`;
  // Steps 2 and 3
  for (const [s, r] of STEP2) if (rule(w, s, r, 0)) break;
  for (const [s, r] of STEP3) if (rule(w, s, r, 0)) break;
  // Step 4
  for (const s of STEP4) {
    if (!w.s.endsWith(s)) continue;
    const stem = w.s.length - s.length;
    if (measure(w.s, stem) > 1 && (s !== 'ion' || /[st]$/.test(w.s.slice(0, stem)))) w.s = w.s.slice(0, stem);
    break;
  }
  // Step 5a
  if (w.s.endsWith('e')) {
    const m = measure(w.s, w.s.length - 1);
    if (m > 1 || (m === 1 && !cvc(w.s, w.s.length - 1))) w.s = w.s.slice(0, -1);
  }
  // Step 5b
  if (measure(w.s, w.s.length) > 1 && doubleCons(w.s) && w.s.endsWith('l')) w.s = w.s.slice(0, -1);
  return w.s;
}
