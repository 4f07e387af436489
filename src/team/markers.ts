// Ownership markers written many at once, for a batched `team share` (team bundle only: the
// hook path reads markers through src/store/replica.ts and never loads fs.promises).
import * as fs from 'node:fs';
import { FILE_MODE, uniqueTempName } from '../store/fsutil.ts';
import { MARKER_FILE, type OwnershipMarker } from '../store/replica.ts';

/**
 * Many markers at once (a batched `team share`), each as atomic and durable as writeMarker's:
 * every temp file written, all fsync'd together, renamed, and every folder fsync'd together.
 * The fsyncs are issued concurrently (libuv's pool) so the filesystem commits them as a
 * group instead of one journal flush per marker (about 11 ms each on a virtual disk here).
 * What a crash leaves: for each session the old marker or the new one, and stray temp files
 * that the store's temp sweep removes.
 */
export async function writeMarkers(list: { dir: string; marker: OwnershipMarker }[]): Promise<void> {
  const fsyncAll = (paths: string[], folders: boolean) =>
    Promise.all(
      paths.map(async (p) => {
        const fh = await fs.promises.open(p, 'r');
        try {
          await fh.sync();
        } catch (e) {
          // Some filesystems refuse fsync on a folder (fsyncDir ignores it too); a file must sync.
          if (!folders) throw e;
        } finally {
          await fh.close();
        }
      }),
    );
  const temps = list.map(({ dir, marker }) => {
    const tmp = uniqueTempName(dir, MARKER_FILE);
    fs.writeFileSync(tmp, `${JSON.stringify(marker)}\n`, { flag: 'wx', mode: FILE_MODE });
    return tmp;
  });
  try {
    await fsyncAll(temps, false);
    for (const [i, { dir }] of list.entries()) fs.renameSync(temps[i], `${dir}/${MARKER_FILE}`);
  } catch (e) {
    for (const tmp of temps) fs.rmSync(tmp, { force: true });
    throw e;
  }
  await fsyncAll(list.map((x) => x.dir), true);
}
