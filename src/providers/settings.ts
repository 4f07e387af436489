// Editing a provider's settings file as TEXT (hooks.md, Install): baton inserts and removes
// only its own hook entries, leaving every other byte — keys, foreign entries, comments,
// indentation, line endings — as it was. jsonc-parser locates nodes; the edits are splices
// shaped like the file's own indentation, and a removal is the exact inverse of an insertion
// (so install then uninstall gives back the original bytes). Pure: text in, text out.
// CLI only: never imported by the hook bundle. Imports jsonc-parser's ESM build: its UMD
// build requires its modules by computed paths that a bundle cannot follow.
import { type Node, type ParseError, findNodeAtLocation, parseTree } from 'jsonc-parser/lib/esm/main.js';
import { fail } from '../core/errors.ts';

export interface HookEntryRef {
  event: string;
  group: number;
  hook: number;
  command: string;
  /** Offset and length of the command string node. */
  offset: number;
  length: number;
}

interface Style {
  eol: string;
  unit: string;
}

function styleOf(text: string): Style {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  let unit = '  ';
  let min = Number.POSITIVE_INFINITY;
  for (const line of text.split(/\r?\n/)) {
    const m = /^([ \t]+)\S/.exec(line);
    if (!m) continue;
    if (m[1].startsWith('\t')) {
      unit = '\t';
      break;
    }
    if (m[1].length < min) {
      min = m[1].length;
      unit = ' '.repeat(min);
    }
  }
  return { eol, unit };
}

function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))![0];
}

function sameLine(text: string, a: number, b: number): boolean {
  return !text.slice(Math.min(a, b), Math.max(a, b)).includes('\n');
}

function pretty(value: unknown, indent: string, st: Style): string {
  return JSON.stringify(value, null, st.unit).split('\n').join(st.eol + indent);
}

export function parseSettings(text: string, file: string): Node {
  if (text.trim() === '') text = '{}';
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length || !root || root.type !== 'object') {
    fail('HK102', `${file} is not a JSON object baton can edit safely (fix it by hand, then run the command again)`, { file });
  }
  return root;
}

/** Inserts `value` as the last member of an object (key given) or array (key null). */
function insertMember(text: string, container: Node, key: string | null, value: unknown, st: Style): string {
  const members = container.children ?? [];
  const item = (indent: string) => (key === null ? '' : `${JSON.stringify(key)}: `) + pretty(value, indent, st);
  if (members.length > 0) {
    const last = members[members.length - 1];
    const end = last.offset + last.length;
    if (sameLine(text, container.offset, last.offset)) {
      // A one-line container stays one line.
      return `${text.slice(0, end)}, ${key === null ? '' : `${JSON.stringify(key)}: `}${JSON.stringify(value)}${text.slice(end)}`;
    }
    const indent = lineIndent(text, last.offset);
    return `${text.slice(0, end)},${st.eol}${indent}${item(indent)}${text.slice(end)}`;
  }
  const outer = lineIndent(text, container.offset);
  const inner = outer + st.unit;
  const open = container.offset + 1;
  const close = container.offset + container.length - 1;
  return `${text.slice(0, open)}${st.eol}${inner}${item(inner)}${st.eol}${outer}${text.slice(close)}`;
}

/** Removes a member (a property node or an array element): the inverse of insertMember. */
function removeMember(text: string, container: Node, member: Node): string {
  const members = container.children ?? [];
  const i = members.indexOf(member);
  if (i > 0) {
    const prev = members[i - 1];
    return text.slice(0, prev.offset + prev.length) + text.slice(member.offset + member.length);
  }
  if (members.length > 1) return text.slice(0, member.offset) + text.slice(members[1].offset);
  return text.slice(0, container.offset + 1) + text.slice(container.offset + container.length - 1);
}

const propValue = (obj: Node | undefined, key: string): Node | undefined =>
  obj?.type === 'object' ? obj.children?.find((p) => p.children?.[0]?.value === key)?.children?.[1] : undefined;

/** The value at `path` (object keys from the root), or undefined. */
export function valueAt(text: string, path: readonly string[], file: string): unknown {
  let node: Node | undefined = parseSettings(text, file);
  for (const key of path) node = propValue(node, key);
  return node === undefined ? undefined : JSON.parse(text.slice(node.offset, node.offset + node.length));
}

/**
 * Sets the member at `path` to `value`, creating the objects above it as one insertion (so
 * removeAt is its exact inverse); an existing value is replaced in place. HK102 when a
 * step of the path is not an object.
 */
export function setAt(text: string, path: readonly string[], value: unknown, file: string): string {
  const base = text.trim() === '' ? '{}\n' : text;
  const st = styleOf(base);
  let node = parseSettings(base, file);
  for (let i = 0; i < path.length; i++) {
    const next = propValue(node, path[i]);
    if (next === undefined) {
      const rest = path.slice(i + 1).reduceRight<unknown>((v, k) => ({ [k]: v }), value);
      return insertMember(base, node, path[i], rest, st);
    }
    if (i === path.length - 1) return base.slice(0, next.offset) + pretty(value, lineIndent(base, next.offset), st) + base.slice(next.offset + next.length);
    if (next.type !== 'object') fail('HK102', `${file}: "${path.slice(0, i + 1).join('.')}" is not an object`, { file });
    node = next;
  }
  return base;
}

/**
 * Removes the member at `path` and every object above it that it leaves empty, except the
 * first `keep` objects of the path (the inverse of setAt when they existed before it).
 */
export function removeAt(text: string, path: readonly string[], file: string, keep = 0): string {
  for (let depth = path.length; depth > keep; depth--) {
    const chain: Node[] = [parseSettings(text, file)];
    for (const key of path.slice(0, depth)) {
      const v = propValue(chain[chain.length - 1], key);
      if (v === undefined) return text;
      chain.push(v);
    }
    const value = chain[chain.length - 1];
    if (depth < path.length && (value.children ?? []).length > 0) return text;
    text = removeMember(text, chain[chain.length - 2], value.parent!);
  }
  return text;
}

/** Every command hook under `hooks`, with where its command string sits. */
export function listEntries(text: string, file = 'settings'): HookEntryRef[] {
  const root = parseSettings(text, file);
  const hooks = propValue(root, 'hooks');
  const out: HookEntryRef[] = [];
  if (hooks?.type !== 'object') return out;
  for (const prop of hooks.children ?? []) {
    const event = prop.children?.[0]?.value;
    const arr = prop.children?.[1];
    if (typeof event !== 'string' || arr?.type !== 'array') continue;
    (arr.children ?? []).forEach((group, gi) => {
      const list = propValue(group, 'hooks');
      if (list?.type !== 'array') return;
      (list.children ?? []).forEach((h, hi) => {
        const cmd = propValue(h, 'command');
        if (cmd?.type === 'string') out.push({ event, group: gi, hook: hi, command: cmd.value, offset: cmd.offset, length: cmd.length });
      });
    });
  }
  return out;
}

/** Matchers of a group (for the test harness and status). */
export function matcherOf(text: string, event: string, group: number): string | undefined {
  const root = parseSettings(text, 'settings');
  const g = findNodeAtLocation(root, ['hooks', event, group]);
  const m = propValue(g, 'matcher');
  return m?.type === 'string' ? m.value : undefined;
}

/** Adds one group `{hooks:[hook]}` to hooks[event], creating `hooks` and the event as needed. */
export function addGroup(text: string, event: string, group: unknown, file: string): string {
  const base = text.trim() === '' ? '{}\n' : text;
  const st = styleOf(base);
  const root = parseSettings(base, file);
  const hooks = propValue(root, 'hooks');
  if (!hooks) return insertMember(base, root, 'hooks', { [event]: [group] }, st);
  if (hooks.type !== 'object') fail('HK102', `${file}: "hooks" is not an object`, { file });
  const arr = propValue(hooks, event);
  if (!arr) return insertMember(base, hooks, event, [group], st);
  if (arr.type !== 'array') fail('HK102', `${file}: hooks.${event} is not an array`, { file });
  return insertMember(base, arr, null, group, st);
}

/** Replaces a hook's command string (install --force over an earlier baton's entry). */
export function replaceCommand(text: string, ref: HookEntryRef, command: string): string {
  return text.slice(0, ref.offset) + JSON.stringify(command) + text.slice(ref.offset + ref.length);
}

/**
 * Removes every hook whose command `isOurs`, taking with it the group, the event and the
 * `hooks` key that only held baton's entries (unless `keepHooks`: it was there before). Returns the text and how many were removed.
 */
export function removeEntries(text: string, isOurs: (command: string) => boolean, file: string, opts: { keepHooks?: boolean } = {}): { text: string; removed: number } {
  let removed = 0;
  for (let guard = 0; guard < 1000; guard++) {
    const root = parseSettings(text, file);
    const hooksProp = root.children?.find((p) => p.children?.[0]?.value === 'hooks');
    const hooks = hooksProp?.children?.[1];
    if (!hooksProp || hooks?.type !== 'object') break;
    const cmdOf = (h: Node): string | undefined => {
      const c = propValue(h, 'command');
      return c?.type === 'string' ? c.value : undefined;
    };
    const hooksOfGroup = (g: Node): Node[] => {
      const l = propValue(g, 'hooks');
      return l?.type === 'array' ? (l.children ?? []) : [];
    };
    const oursHook = (h: Node): boolean => {
      const c = cmdOf(h);
      return c !== undefined && isOurs(c);
    };
    const groupAllOurs = (g: Node): boolean => hooksOfGroup(g).length > 0 && hooksOfGroup(g).every(oursHook);
    const eventAllOurs = (arr: Node | undefined): boolean => arr?.type === 'array' && (arr.children ?? []).length > 0 && (arr.children ?? []).every(groupAllOurs);
    const props = hooks.children ?? [];
    const any = props.some((p) => p.children?.[1]?.type === 'array' && (p.children[1].children ?? []).some((g) => hooksOfGroup(g).some(oursHook)));
    if (!any) break;
    // keepHooks: the file had a `hooks` object before install (`"hooks": {}`): removing its
    // members one by one leaves it as it was, byte for byte.
    if (!opts.keepHooks && props.length > 0 && props.every((p) => eventAllOurs(p.children?.[1]))) {
      removed += props.reduce((n, p) => n + (p.children?.[1]?.children ?? []).reduce((m, g) => m + hooksOfGroup(g).length, 0), 0);
      text = removeMember(text, root, hooksProp);
      continue;
    }
    const evProp = props.find((p) => (p.children?.[1]?.children ?? []).some((g) => hooksOfGroup(g).some(oursHook)))!;
    const arr = evProp.children![1];
    if (eventAllOurs(arr)) {
      removed += (arr.children ?? []).reduce((m, g) => m + hooksOfGroup(g).length, 0);
      text = removeMember(text, hooks, evProp);
      continue;
    }
    const group = (arr.children ?? []).find((g) => hooksOfGroup(g).some(oursHook))!;
    if (groupAllOurs(group)) {
      removed += hooksOfGroup(group).length;
      text = removeMember(text, arr, group);
      continue;
    }
    const list = propValue(group, 'hooks')!;
    const h = hooksOfGroup(group).find(oursHook)!;
    removed++;
    text = removeMember(text, list, h);
  }
  return { text, removed };
}

/** A small line diff for --dry-run (files are small: an LCS table is fine). */
export function lineDiff(before: string, after: string, label: string): string {
  const a = before.split('\n');
  const b = after.split('\n');
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const ops: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push(`  ${a[i]}`);
      i++;
      j++;
    } else if (j < m && (i >= n || lcs[i][j + 1] >= lcs[i + 1][j])) ops.push(`+ ${b[j++]}`);
    else ops.push(`- ${a[i++]}`);
  }
  // Keep two lines of context around changes.
  const keep = ops.map((_o, k) => ops.slice(Math.max(0, k - 2), k + 3).some((x) => !x.startsWith('  ')));
  const out = [`--- ${label}`, `+++ ${label} (after)`];
  let skipped = false;
  ops.forEach((o, k) => {
    if (keep[k]) {
      out.push(o);
      skipped = false;
    } else if (!skipped) {
      out.push('  ...');
      skipped = true;
    }
  });
  return out.join('\n');
}
