// A small windowing list (no dependency): fixed-height rows, only the visible ones (plus a
// margin) are in the DOM, so 100,000 rows scroll like 50. The parent learns the visible
// range (to fetch what is missing) and can keep the view pinned to the end (live tail).
import { type ReactNode, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';

interface Props {
  count: number;
  rowHeight: number;
  renderRow: (index: number) => ReactNode;
  onRange?: (first: number, last: number) => void;
  /** Start at the end and follow new rows while the view is at the end. */
  tail?: boolean;
  /** Scrolls to this row when it changes. */
  scrollTo?: { index: number; nonce: number } | null;
  label: string;
  className?: string;
}

const OVERSCAN = 8;

export function Window({ count, rowHeight, renderRow, onRange, tail, scrollTo, label, className }: Props) {
  const box = useRef<HTMLElement>(null);
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(600);
  const atEnd = useRef(!!tail);

  const measure = useCallback(() => {
    const el = box.current;
    if (!el) return;
    setTop(el.scrollTop);
    setHeight(el.clientHeight);
    atEnd.current = el.scrollTop + el.clientHeight >= el.scrollHeight - rowHeight;
  }, [rowHeight]);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [measure]);

  // Follow the end when new rows arrive and the reader was already there.
  useLayoutEffect(() => {
    const el = box.current;
    if (el && tail && atEnd.current && count > 0) {
      el.scrollTop = el.scrollHeight;
      setTop(el.scrollTop);
    }
  }, [count, tail]);

  useLayoutEffect(() => {
    const el = box.current;
    if (el && scrollTo) {
      el.scrollTop = Math.max(0, scrollTo.index * rowHeight - rowHeight);
      setTop(el.scrollTop);
    }
  }, [scrollTo, rowHeight]);

  const first = Math.max(0, Math.floor(top / rowHeight) - OVERSCAN);
  const last = Math.min(count - 1, Math.ceil((top + height) / rowHeight) + OVERSCAN);

  useEffect(() => {
    if (count > 0) onRange?.(first, last);
  }, [first, last, count, onRange]);

  const rows: ReactNode[] = [];
  for (let i = first; i <= last; i++) {
    rows.push(
      <li key={i} className="win-row" style={{ top: i * rowHeight, height: rowHeight }}>
        {renderRow(i)}
      </li>,
    );
  }
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: the scrolled region must be reachable by keyboard (axe: scrollable-region-focusable)
    <section ref={box} className={`win ${className ?? ''}`} onScroll={measure} tabIndex={0} aria-label={label} style={{ maxHeight: Math.max(count, 1) * rowHeight + 2 }}>
      <ol className="win-list" style={{ height: count * rowHeight }}>
        {rows}
      </ol>
    </section>
  );
}
