// A tiny Markdown renderer for agent text in the transcript (web.md, Transcript): paragraphs,
// code fences, inline code, bold and italic, flat lists and links. Invariant: it builds React
// elements only, so every character of the agent's text reaches the DOM as a text node (never
// innerHTML): `<img onerror=…>` shows as those characters, and a link is an <a> only when its
// target is http(s); any other target (javascript:, data:, relative) stays plain text.
import { type ReactNode, memo } from 'react';

/** A link's host as the browser will go to it, or null when it does not parse as a URL. */
function hostOf(href: string): string | null {
  try {
    return new URL(href).host || null;
  } catch {
    return null;
  }
}

/** The link targets that become an <a>: absolute http and https only. */
export function safeHref(url: string): string | null {
  return /^https?:\/\/[^\s]+$/i.test(url) ? url : null;
}

// Inline: `code`, **bold** / __bold__, *italic* / _italic_, [text](url). Every span is at most
// SPAN characters (a link's target at most 2048): an opener never closed would otherwise have
// the expression scan to the text's end from each one, quadratic in the text (32,000 `[` in one
// item took 0.35 s, ten such items froze the tab), now linear with a bounded factor.
const SPAN = 400;
const INLINE = new RegExp(
  [
    `(\`+)([\\s\\S]{1,${SPAN}}?)\\1`,
    `\\*\\*(?=\\S)([\\s\\S]{1,${SPAN}}?)\\*\\*`,
    `(?<![A-Za-z0-9_])__(?=\\S)([\\s\\S]{1,${SPAN}}?)__(?![A-Za-z0-9_])`,
    `\\*(?=[^\\s*])([^*]{1,${SPAN}}?)\\*`,
    `(?<![A-Za-z0-9_])_(?=[^\\s_])([^_]{1,${SPAN}}?)_(?![A-Za-z0-9_])`,
    `\\[([^\\]\\n]{1,${SPAN}})\\]\\(([^()\\s]{1,2048})\\)`,
  ].join('|'),
  'g',
);

export function inline(text: string, key = 'i'): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  let n = 0;
  for (const m of text.matchAll(INLINE)) {
    const at = m.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    const k = `${key}.${n++}`;
    if (m[1] !== undefined) out.push(<code key={k}>{m[2]}</code>);
    else if (m[3] !== undefined || m[4] !== undefined) out.push(<strong key={k}>{inline(m[3] ?? m[4], k)}</strong>);
    else if (m[5] !== undefined || m[6] !== undefined) out.push(<em key={k}>{inline(m[5] ?? m[6], k)}</em>);
    else {
      const href = safeHref(m[8]);
      const host = href ? hostOf(href) : null;
      out.push(
        href && host ? (
          <span key={k}>
            <a href={href} rel="noopener noreferrer nofollow" target="_blank">
              {inline(m[7], k)}
            </a>
            {/* Where it goes, as the browser reads it (punycode, no user part): the text cannot claim another host. */}
            {m[7] !== href && m[7] !== host && <span className="md-host"> ({host})</span>}
          </span>
        ) : (
          m[0]
        ),
      );
    }
    last = at + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

const FENCE = /^\s*(```+|~~~+)\s*([\w+-]*)\s*$/;
const ITEM = /^\s*([-*+]|\d{1,9}[.)])\s+(.*)$/;

/**
 * Agent text as blocks: fenced code, lists, paragraphs (a line break inside one is kept).
 * Memoized on the text: a re-render of the page (its clock ticks every 5 s) parses no item again.
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks: ReactNode[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length) blocks.push(<p key={`p${blocks.length}`}>{inline(para.join('\n'), `p${blocks.length}`)}</p>);
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = FENCE.exec(line);
    if (fence) {
      flush();
      const body: string[] = [];
      const close = fence[1];
      for (i++; i < lines.length && !(lines[i].trim().startsWith(close) && lines[i].trim().replace(/[`~]/g, '') === ''); i++) body.push(lines[i]);
      blocks.push(
        <pre key={`c${blocks.length}`} className="md-code" data-lang={fence[2] || undefined}>
          <code>{body.join('\n')}</code>
        </pre>,
      );
      continue;
    }
    const item = ITEM.exec(line);
    if (item) {
      flush();
      const ordered = /\d/.test(item[1]);
      const items: string[] = [];
      for (; i < lines.length; i++) {
        const it = ITEM.exec(lines[i]);
        if (it && /\d/.test(it[1]) === ordered) items.push(it[2]);
        else if (items.length && lines[i].trim() !== '' && /^\s{2,}/.test(lines[i])) items[items.length - 1] += `\n${lines[i].trim()}`;
        else break;
      }
      i--;
      const k = `l${blocks.length}`;
      const lis = items.map((t, j) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a list's items never reorder
        <li key={j}>{inline(t, `${k}.${j}`)}</li>
      ));
      blocks.push(ordered ? <ol key={k}>{lis}</ol> : <ul key={k}>{lis}</ul>);
      continue;
    }
    const heading = /^\s*#{1,6}\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      // A heading in agent text is shown bold: the page's own heading outline stays the page's.
      blocks.push(
        <p key={`h${blocks.length}`} className="md-h">
          <strong>{inline(heading[1], `h${blocks.length}`)}</strong>
        </p>,
      );
      continue;
    }
    if (line.trim() === '') flush();
    else para.push(line);
  }
  flush();
  return <div className="md">{blocks}</div>;
});
