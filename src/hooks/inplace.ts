// Small hint files rewritten on the hook path (the open-episode cache, last-run marks).
// They are written IN PLACE, padded with spaces to the old length, never truncated nor
// renamed over: on ext4 both a rename over an existing file and a truncate to zero make the
// kernel flush the data (auto_da_alloc), which costs as much as an fsync. A crash can leave
// a torn hint; every reader treats an unreadable hint as missing and rebuilds it.
import * as fs from 'node:fs';
import { FILE_MODE } from '../store/fsutil.ts';

export function overwriteInPlace(path: string, text: string): void {
  const fd = fs.openSync(path, fs.constants.O_RDWR | fs.constants.O_CREAT, FILE_MODE);
  try {
    const old = fs.fstatSync(fd).size;
    let buf = Buffer.from(text);
    if (buf.length < old) buf = Buffer.concat([buf, Buffer.alloc(old - buf.length, 0x20)]);
    fs.writeSync(fd, buf, 0, buf.length, 0);
  } finally {
    fs.closeSync(fd);
  }
}
