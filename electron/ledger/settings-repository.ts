import type { LedgerDb } from './database-handle';

/**
 * The console's own settings (`console_settings`): one JSON value per key. Callers parse what they
 * read with their schema (shared/), so a value written by another version is checked, never trusted.
 */
export class SettingsRepository {
  constructor(private readonly db: LedgerDb) {}

  read(key: string): unknown {
    const row = this.db.prepare('SELECT value_json FROM console_settings WHERE key = ?').get(key) as { value_json: string } | undefined;
    if (!row) return undefined;
    try {
      return JSON.parse(row.value_json) as unknown;
    } catch {
      return undefined;
    }
  }

  write(key: string, value: unknown, at: number): void {
    this.db
      .prepare(
        `INSERT INTO console_settings (key, value_json, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET value_json = excluded.value_json, updated_at = excluded.updated_at`,
      )
      .run(key, JSON.stringify(value), at);
  }
}
