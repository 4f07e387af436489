// Kilo's transcript reader (`kilo`, 7.7.7 seen): a fork of opencode with the same SQLite store
// and the same plugin API, so opencode.ts reads it under Kilo's names: the data folder
// `$XDG_DATA_HOME/kilo` (else `~/.local/share/kilo`), the database `kilo.db` for release builds
// (`kilo-<channel>.db` for others, or an older `opencode-<channel>.db` there; unless
// `KILO_DISABLE_CHANNEL_DB`), or `$KILO_DB` (absolute, or relative to the data folder). The
// tables, the message and part documents and the mapping are opencode's (opencode.ts); baton's
// plugin sends the turn's messages at session.idle in `transcript_items` (ADR 0046).
import { opencodeLikeReader } from './opencode.ts';

export const kiloReader = opencodeLikeReader({ agent: 'kilo', folder: 'kilo', dbVar: 'KILO_DB', dbFile: /^(kilo|opencode)(-[A-Za-z0-9._-]+)?\.db$/ });
