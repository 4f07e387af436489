// A progress bar for long work, on a TTY (stderr) only; nothing otherwise.
export interface Progress {
  tick(n?: number): void;
  done(): void;
}

export function progress(total: number, label: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY || total < 2) return { tick() {}, done() {} };
  let n = 0;
  let lastDraw = 0;
  const draw = (): void => {
    const width = 30;
    const filled = Math.round((n / total) * width);
    stream.write(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${n}/${total}`);
  };
  return {
    tick(k = 1) {
      n += k;
      const now = Date.now();
      if (now - lastDraw > 100 || n >= total) {
        lastDraw = now;
        draw();
      }
    },
    done() {
      draw();
      stream.write('\n');
    },
  };
}

/** What a byte-rated progress line shows: items done of a total, bytes done of a total. */
export interface RateState {
  done: number;
  total: number;
  bytesDone: number;
  bytesTotal: number;
}

/**
 * A one-line progress report for long byte-bound work (history import): `label  N/M sessions,
 * X/Y MB, R MB/s, ETA T`, redrawn at most every 200 ms on a TTY (stderr), cleared when done;
 * nothing otherwise. `now` is injected so the line's arithmetic is testable.
 */
export function rateLine(label: string, stream: NodeJS.WriteStream = process.stderr, now: () => number = Date.now): { update(s: RateState): void; done(): void } {
  if (!stream.isTTY) return { update() {}, done() {} };
  const start = now();
  let last = 0;
  let drawn = false;
  return {
    update(s) {
      const t = now();
      if (t - last < 200 && s.done < s.total) return;
      last = t;
      drawn = true;
      stream.write(`\r\x1b[2K${formatRate(label, s, t - start)}`);
    },
    done() {
      if (drawn) stream.write('\r\x1b[2K');
    },
  };
}

export function formatRate(label: string, s: RateState, elapsedMs: number): string {
  const mb = (n: number): string => (n / 1e6).toFixed(1);
  const rate = elapsedMs > 0 ? s.bytesDone / (elapsedMs / 1000) : 0;
  const left = s.bytesTotal - s.bytesDone;
  const eta = rate > 0 && left > 0 ? `${Math.ceil(left / rate)}s` : '-';
  return `${label} ${s.done}/${s.total} sessions, ${mb(s.bytesDone)}/${mb(s.bytesTotal)} MB, ${mb(rate)} MB/s, ETA ${eta}`;
}
