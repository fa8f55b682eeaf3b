import { z } from 'zod';
import { hostKeySchema, hostTestSchema, type HostKey, type HostTest } from '../../shared/hosts';
import type { LedgerDb } from './database-handle';

interface HostRow {
  id: string;
  name: string;
  added_at: number;
  last_test_json: string | null;
  presented_key_json: string | null;
}

/** The key an unknown host presented, with the known_hosts entries ssh wrote for it. */
export interface PresentedHostKey {
  key: HostKey;
  entries: string[];
}

const presentedKeySchema = z.object({ key: hostKeySchema, entries: z.array(z.string()).min(1) });

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

  /** The test's answer, and the key it was presented when no known_hosts file knew it (null otherwise). */
  recordTest(id: string, test: HostTest, presented: PresentedHostKey | null): void {
    this.db.prepare('UPDATE hosts SET last_test_json = ?, presented_key_json = ? WHERE id = ?').run(JSON.stringify(test), presented && JSON.stringify(presented), id);
  }

  presentedKey(id: string): PresentedHostKey | null {
    const row = this.db.prepare('SELECT presented_key_json FROM hosts WHERE id = ?').get(id) as { presented_key_json: string | null } | undefined;
    if (!row?.presented_key_json) return null;
    try {
      const parsed = presentedKeySchema.safeParse(JSON.parse(row.presented_key_json));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  /** Trusted, or no longer what the host presents: nothing is left to trust. */
  forgetPresentedKey(id: string): void {
    this.db.prepare('UPDATE hosts SET presented_key_json = NULL WHERE id = ?').run(id);
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
