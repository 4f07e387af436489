// redact.worst (issue 11; docs/redaction.md): the default redactor's MB/s on adversarial
// text against its MB/s on ordinary text, interleaved A B A B, median of the per-pair
// ratios. Target ≥ 0.5 (within 2×): no input may make redaction superlinear.
// Adversarial text: for every sample of every rule (test/fixtures/secret-samples.ts), the
// sample cut in the middle of its secret — a prefix that starts a match and never completes
// it — repeated into a block, and the rule's bare anchor repeated into another; all blocks
// concatenated. Also measured alone (details): the case, PEM header lines repeated,
// and the slowest single block. Ordinary text: seeded prose, code, URLs, hashes and ids.
import { redactDefault } from '../../src/core/redact.ts';
import { SAMPLES } from '../../test/fixtures/secret-samples.ts';
import { MiB, interleaved, nowMs, prng, randInt, randText } from '../lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';

/** `unit` repeated (with a separator) to about `bytes` characters. */
function repeat(unit: string, bytes: number, sep = ''): string {
  const n = Math.max(1, Math.ceil(bytes / (unit.length + sep.length)));
  return Array.from({ length: n }, () => unit).join(sep);
}

/** The prefixes of one sample that an attacker would repeat: up to half its secret, and its anchor alone. */
function prefixesOf(text: string, secret: string): string[] {
  const at = text.indexOf(secret);
  const half = text.slice(0, at + Math.max(1, secret.length >> 1));
  const anchor = secret.slice(0, Math.min(secret.length, 12));
  return [half, anchor];
}

export function adversarialBlocks(bytesPerBlock: number): { name: string; text: string }[] {
  const blocks: { name: string; text: string }[] = [];
  for (const s of SAMPLES) {
    const [half, anchor] = prefixesOf(s.text, s.secret);
    blocks.push({ name: `${s.id}:half`, text: repeat(half, bytesPerBlock) });
    blocks.push({ name: `${s.id}:anchor`, text: repeat(anchor, bytesPerBlock, ' ') });
  }
  return blocks;
}

export function ordinaryText(bytes: number, seed: number): string {
  const rng = prng(seed);
  const hex = (n: number): string => Array.from({ length: n }, () => '0123456789abcdef'[randInt(rng, 0, 15)]).join('');
  const lines: string[] = [];
  let size = 0;
  while (size < bytes) {
    const r = rng();
    let line: string;
    if (r < 0.5) line = randText(rng, randInt(rng, 40, 300));
    else if (r < 0.65) line = `  const ${randText(rng, 8).replace(/\W/g, '')} = await client.upload(file, { retries: ${randInt(rng, 1, 9)}, key: opts.key, token });`;
    else if (r < 0.75) line = `see https://example.com/docs/${randText(rng, 12).replace(/\W/g, '-')}?page=${randInt(rng, 1, 99)} and commit ${hex(40)}`;
    else if (r < 0.85) line = `{"id": "${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}", "status": "ok", "sha256": "${hex(64)}"}`;
    else line = `The password policy and the token lifetime are documented; ${randText(rng, randInt(rng, 20, 120))}`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

/** MB/s of one redaction of `text`. */
function rate(text: string): number {
  const t0 = nowMs();
  redactDefault(text);
  return text.length / MiB / ((nowMs() - t0) / 1000);
}

const redactWorst: BenchCase = {
  name: 'redact.worst',
  async run(ctx): Promise<CaseResult> {
    const perBlock = ctx.quick ? 8 * 1024 : 24 * 1024;
    const blocks = adversarialBlocks(perBlock);
    const adversarial = blocks.map((b) => b.text).join('\n');
    const ordinary = ordinaryText(adversarial.length, 11);
    // Warm-up: every rule compiled and tiered up before anything is measured.
    redactDefault(adversarial);
    redactDefault(ordinary);
    const pairs = ctx.quick ? 5 : 11;
    const r = await interleaved(pairs, () => rate(adversarial), () => rate(ordinary));
    // The input, PEM header lines repeated, at the same size.
    const pem = repeat(`-----${'BEGIN'} RSA PRIVATE KEY-----\n`, adversarial.length);
    redactDefault(pem);
    const pemRatio = await interleaved(pairs, () => rate(pem), () => rate(ordinary));
    // Each block alone, for the record: the slowest ones say which rule to look at.
    const slowest = blocks
      .map((b) => {
        const text = b.text.repeat(4);
        return { name: b.name, mb_s: Math.max(rate(text), rate(text), rate(text)) };
      })
      .sort((a, b) => a.mb_s - b.mb_s)
      .slice(0, 5)
      .map((b) => `${b.name} ${b.mb_s.toFixed(1)}`)
      .join(', ');
    const round = (x: number): number => Math.round(x * 1000) / 1000;
    return {
      name: 'redact.worst',
      ours: r.a,
      baseline: r.b,
      ratio: r.ratio,
      unit: 'MB/s',
      target: 'ratio ≥ 0.5',
      pass: r.ratio >= 0.5 && pemRatio.ratio >= 0.5,
      details: {
        pairs,
        adversarial_mib: round(adversarial.length / MiB),
        blocks: blocks.length,
        adversarial_mb_s: round(r.a),
        ordinary_mb_s: round(r.b),
        pem_headers_ratio: round(pemRatio.ratio),
        pem_headers_mb_s: round(pemRatio.a),
        slowest_blocks: slowest,
      },
    };
  },
};

export default redactWorst;
