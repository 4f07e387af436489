// Kilo 7.7.7 (a fork of opencode, same plugin API), the real program, offline, with baton's
// plugin installed by `baton install kilo` (opencode-like.ts). Its runs start slowly: a longer timeout.
import { opencodeStory } from './opencode-like.ts';

opencodeStory('kilo', 240_000);
