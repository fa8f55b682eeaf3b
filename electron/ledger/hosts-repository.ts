import { hostTestSchema, type HostTest } from '../../shared/hosts';
import type { LedgerDb } from './database-handle';

interface HostRow {
  id: string;
  name: string;
  added_at: number;
  last_test_json: string | null;
}

export interface StoredHost {
  id: string;
  name: string;
  addedAt: number;
  lastTest: HostTest | null;
}

function toHost(row: HostRow): StoredHost {
  return { id: row.id, name: row.name, addedAt: row.added_at, lastTest: readTest(row.last_test_json) };
}

/** A stored test is read back through its schema: one the console cannot read any more is no test. */
function readTest(json: string | null): HostTest | null {
  if (json === null) return null;
  try {
    const parsed = hostTestSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** SSH hosts the operator added (Settings → Hosts), and what their last test found. */
export class HostsRepository {
  constructor(private readonly db: LedgerDb) {}

  list(): StoredHost[] {
    return (this.db.prepare('SELECT * FROM hosts ORDER BY name COLLATE NOCASE').all() as HostRow[]).map(toHost);
  }

  get(id: string): StoredHost | undefined {
    const row = this.db.prepare('SELECT * FROM hosts WHERE id = ?').get(id) as HostRow | undefined;
    return row && toHost(row);
  }

  findByName(name: string): StoredHost | undefined {
    const row = this.db.prepare('SELECT * FROM hosts WHERE name = ?').get(name) as HostRow | undefined;
    return row && toHost(row);
  }

  insert(id: string, name: string, at: number): void {
    this.db.prepare('INSERT INTO hosts (id, name, added_at) VALUES (?, ?, ?)').run(id, name, at);
  }

  recordTest(id: string, test: HostTest): void {
    this.db.prepare('UPDATE hosts SET last_test_json = ? WHERE id = ?').run(JSON.stringify(test), id);
  }

  /** The live environments that name the host. */
  environmentIds(id: string): string[] {
    return (this.db.prepare('SELECT id FROM environments WHERE host_id = ? AND deleted_at IS NULL ORDER BY name COLLATE NOCASE').all(id) as { id: string }[]).map(
      (row) => row.id,
    );
  }

  /** Removes the host; deleted environments that named it forget it (their runs' records keep theirs). */
  delete(id: string): boolean {
    return this.db.transaction(() => {
      this.db.prepare('UPDATE environments SET host_id = NULL WHERE host_id = ? AND deleted_at IS NOT NULL').run(id);
      return this.db.prepare('DELETE FROM hosts WHERE id = ?').run(id).changes === 1;
    })();
  }
}
