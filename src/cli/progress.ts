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
