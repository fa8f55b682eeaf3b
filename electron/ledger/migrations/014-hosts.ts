/**
 * SSH hosts (issue 28): the machines an operator names as `ssh` knows them (Settings → Hosts), with
 * what the last Test host found (JSON, shared/hosts.ts's hostTestSchema, parsed again when read), the
 * key an unknown host presented at that test (its known_hosts entries as ssh wrote them: what Trust
 * writes, also after a restart), and the host an environment's runs are meant for. Trusted host keys
 * are not here: they live in the console's known_hosts file in the data directory, where ssh reads them.
 */
export const hosts = `
CREATE TABLE hosts (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE COLLATE NOCASE,
  added_at INTEGER NOT NULL,
  last_test_json TEXT,
  presented_key_json TEXT
);
ALTER TABLE environments ADD COLUMN host_id TEXT REFERENCES hosts (id);
CREATE INDEX environments_by_host ON environments (host_id);
`;
