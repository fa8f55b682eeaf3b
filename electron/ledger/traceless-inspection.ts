import { linkSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/**
 * Reads a SQLite file the console may refuse (a ledger that is damaged, from a newer console or
 * locked; a backup to restore) without leaving anything beside it.
 *
 * Even a read-only connection writes next to a WAL database: SQLite makes its `-shm` index and an
 * empty `-wal` there, so a console that refused a ledger used to leave two files it found none of. So
 * the connection is opened on hard links instead, in a private folder beside the file (the same disk,
 * which links need): the file itself, and its `-wal` and `-shm` when they are there (the -wal may hold
 * the file's last transactions, which the judgement must see). Whatever SQLite makes, it makes in that
 * folder, and the folder is removed. Where links cannot be made (a file system without them), the file
 * is read in place, as before.
 */
export function inspectWithoutTrace<T>(file: string, inspect: (db: Database.Database) => T, options: { nativeBinding?: string | undefined } = {}): T {
  const target = realpathSync(file);
  const folder = linkedCopy(target);
  const readOnly = { readonly: true, fileMustExist: true, ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}) };
  try {
    const db = new Database(folder ? path.join(folder, path.basename(target)) : target, readOnly);
    try {
      db.pragma('busy_timeout = 5000');
      return inspect(db);
    } finally {
      db.close();
    }
  } finally {
    if (folder) rmSync(folder, { recursive: true, force: true });
  }
}

/** `.<name>.inspecting-XXXXXX`: the folder's name says what it is, should a killed console leave one. */
function folderPrefix(file: string): string {
  return `.${path.basename(file)}.inspecting-`;
}

/** The private folder holding links to the file and its companions; null when links cannot be made. */
function linkedCopy(file: string): string | null {
  const dir = path.dirname(file);
  removeLeftFolders(file);
  let folder: string;
  try {
    folder = mkdtempSync(path.join(dir, folderPrefix(file)));
  } catch {
    return null;
  }
  try {
    linkSync(file, path.join(folder, path.basename(file)));
    for (const suffix of ['-wal', '-shm']) {
      try {
        linkSync(`${file}${suffix}`, path.join(folder, `${path.basename(file)}${suffix}`));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    return folder;
  } catch {
    rmSync(folder, { recursive: true, force: true });
    return null;
  }
}

/** A folder an inspection killed halfway left (the caller holds the data directory: none is in use). */
function removeLeftFolders(file: string): void {
  const prefix = folderPrefix(file);
  let names: string[];
  try {
    names = readdirSync(path.dirname(file));
  } catch {
    return;
  }
  for (const name of names) if (name.startsWith(prefix)) rmSync(path.join(path.dirname(file), name), { recursive: true, force: true });
}
