// Records what Kilo (the pinned real program, a fork of opencode with the same store and plugin
// API) writes for the scripted session of record-transcripts-opencode.ts, into
// test/fixtures/transcripts/kilo/ and test/fixtures/providers/kilo/. Run by hand:
// `node --import tsx test/e2e/record-transcripts-kilo.ts`.
import { recordOpencodeLike } from './record-transcripts-opencode.ts';

await recordOpencodeLike('kilo');
