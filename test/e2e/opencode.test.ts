// opencode 1.18.33, the real program, offline (a custom provider on the stand-in's Chat
// Completions), with baton's plugin installed by `baton install opencode` (opencode-like.ts).
import { opencodeStory } from './opencode-like.ts';

opencodeStory('opencode', 120_000);
