/**
 * The search index (issue 29): SQLite FTS5 over what runs printed, their timelines, tasks and notices.
 * Used by migration 13 and by a rebuild of a damaged index (search-index-writer.ts), so it imports
 * nothing (the output writer's thread loads it from source as a plain module).
 *
 * - `search_rows`: one row per indexed text, saying where it comes from. An output row knows its run
 *   and the byte offset in the run's output where its text starts (a result jumps there). Each source
 *   row's foreign key cascades, so deleting a run, task or notice deletes its rows; a trigger takes
 *   each deleted row's text out of the FTS table (same rowid).
 * - `search_text`: the FTS5 table (unicode61, diacritics folded), rowid = search_rows.id. It keeps no
 *   copy of the text (contentless): an output row's text is read again from the output it came from
 *   (`byte_end`), the others' from their own tables, only for the results shown. So the index costs
 *   its posting lists and no more, and a deleted row costs a tombstone (`contentless_delete`), not a
 *   second tokenization: deleting a run on a nearly full disk needs little room to note it. It keeps
 *   an index of 3-character prefixes too: `dra*` is then one term, not a scan of every term it
 *   begins (1.3 s on 1 GiB of output without it; bench/search.bench.ts), for a third more size.
 * - `search_output_progress`: how far each run's output is indexed (search-index-writer.ts). A run
 *   with output beyond it is caught up in the background; deleting the run deletes it.
 * Output rows are written by the output writer's thread as it stores output; the timeline, tasks and
 * notices (a few short texts each, already redacted when written) by triggers in the writing
 * transaction.
 */

/**
 * FTS5 merges a level's segments once 8 of them exist rather than its default 4: less merging per byte
 * indexed. FTS5 alone indexed a 256 MiB index of generated agent output at 20 MiB/s instead of 11;
 * through the real writer (bench/search.bench.ts, 1 GiB) the gain is smaller, 11.0 against 10.2 MiB/s,
 * with queries the same within the noise (README, Search figures). Kept in the table's own config.
 */
export const searchTextMerging = `INSERT INTO search_text (search_text, rank) VALUES ('automerge', 8);`;

export const searchTextTable = `
CREATE VIRTUAL TABLE search_text USING fts5 (text, content = '', contentless_delete = 1, prefix = '3', tokenize = 'unicode61 remove_diacritics 2');
${searchTextMerging}
CREATE TRIGGER search_rows_forget AFTER DELETE ON search_rows BEGIN
  DELETE FROM search_text WHERE rowid = old.id;
END;
`;

/** Which timeline entries are indexed, and their text: what the agent said, ran and changed. */
export const timelineText = (entry: string) => `CASE ${entry}.kind
    WHEN 'message' THEN json_extract(${entry}.payload_json, '$.text')
    WHEN 'tool_call' THEN concat_ws(' ', json_extract(${entry}.payload_json, '$.name'), json_extract(${entry}.payload_json, '$.input'))
    WHEN 'tool_result' THEN json_extract(${entry}.payload_json, '$.output')
    WHEN 'file_change' THEN concat_ws(' ', json_extract(${entry}.payload_json, '$.change'), json_extract(${entry}.payload_json, '$.path'))
    WHEN 'error' THEN json_extract(${entry}.payload_json, '$.message')
  END`;
const indexedTimelineKinds = `('message', 'tool_call', 'tool_result', 'file_change', 'error')`;
/** Where the run's stored output ends: a timeline entry is parsed from output at or after it. */
const outputEnd = `coalesce((SELECT byte_offset + length(bytes) FROM output_chunks WHERE run_id = new.run_id ORDER BY byte_offset DESC LIMIT 1), 0)`;

export const searchIndexTriggers = `
CREATE TRIGGER search_task_added AFTER INSERT ON tasks BEGIN
  INSERT INTO search_rows (source, task_id, created_at) VALUES ('task', new.id, new.created_at);
  INSERT INTO search_text (rowid, text) VALUES (last_insert_rowid(), new.title || char(10) || new.prompt);
END;
CREATE TRIGGER search_task_changed AFTER UPDATE OF title, prompt ON tasks BEGIN
  DELETE FROM search_rows WHERE task_id = new.id AND source = 'task';
  INSERT INTO search_rows (source, task_id, created_at) VALUES ('task', new.id, new.created_at);
  INSERT INTO search_text (rowid, text) VALUES (last_insert_rowid(), new.title || char(10) || new.prompt);
END;
CREATE TRIGGER search_notice_added AFTER INSERT ON notices BEGIN
  INSERT INTO search_rows (source, notice_id, created_at) VALUES ('notice', new.id, new.created_at);
  INSERT INTO search_text (rowid, text) VALUES (last_insert_rowid(), new.title || char(10) || new.message);
END;
CREATE TRIGGER search_notice_changed AFTER UPDATE OF title, message ON notices BEGIN
  DELETE FROM search_rows WHERE notice_id = new.id;
  INSERT INTO search_rows (source, notice_id, created_at) VALUES ('notice', new.id, new.created_at);
  INSERT INTO search_text (rowid, text) VALUES (last_insert_rowid(), new.title || char(10) || new.message);
END;
CREATE TRIGGER search_timeline_added AFTER INSERT ON run_events WHEN new.kind IN ${indexedTimelineKinds} BEGIN
  INSERT INTO search_rows (source, run_id, event_id, byte_offset, created_at) VALUES ('timeline', new.run_id, new.id, ${outputEnd}, new.created_at);
  INSERT INTO search_text (rowid, text) VALUES (last_insert_rowid(), coalesce(${timelineText('new')}, ''));
END;
`;

/**
 * Takes away what writes into the FTS table as other tables change: with the table missing, those
 * triggers would fail every task, notice, timeline entry and run deletion until the index is rebuilt
 * (which makes them again and indexes what came meanwhile).
 */
export const dropSearchIndexTriggers = ['search_rows_forget', 'search_task_added', 'search_task_changed', 'search_notice_added', 'search_notice_changed', 'search_timeline_added']
  .map((trigger) => `DROP TRIGGER IF EXISTS ${trigger};`)
  .join('\n');

export const searchIndexSchema = `
CREATE TABLE search_rows (
  id INTEGER PRIMARY KEY,
  source TEXT NOT NULL CHECK (source IN ('output', 'timeline', 'task', 'notice')),
  run_id TEXT REFERENCES runs (id) ON DELETE CASCADE,
  task_id TEXT REFERENCES tasks (id) ON DELETE CASCADE,
  notice_id TEXT REFERENCES notices (id) ON DELETE CASCADE,
  event_id INTEGER REFERENCES run_events (id) ON DELETE CASCADE,
  byte_offset INTEGER,
  -- An output row's text is what [byte_offset, byte_end) of the output reads as (ledger/output-text.ts).
  byte_end INTEGER,
  created_at INTEGER NOT NULL
);
-- Partial: the rows of output (most of them) have none of these, and an insert then updates one index.
CREATE INDEX search_rows_by_run ON search_rows (run_id, byte_offset);
CREATE INDEX search_rows_by_task ON search_rows (task_id) WHERE task_id IS NOT NULL;
CREATE INDEX search_rows_by_notice ON search_rows (notice_id) WHERE notice_id IS NOT NULL;
CREATE INDEX search_rows_by_event ON search_rows (event_id) WHERE event_id IS NOT NULL;

CREATE TABLE search_output_progress (
  run_id TEXT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
  -- Rows before this offset are final; the row in progress (if any) starts here.
  resume_offset INTEGER NOT NULL,
  -- The run's output is read up to here.
  indexed_end INTEGER NOT NULL
) WITHOUT ROWID;
${searchTextTable}
${searchIndexTriggers}
`;

/**
 * Indexes what the ledger already holds of tasks, notices and timelines (the triggers index what comes
 * later); output is caught up by the writer's thread, in the background.
 */
export const searchIndexBackfill = `
INSERT INTO search_rows (source, task_id, created_at) SELECT 'task', id, created_at FROM tasks;
INSERT INTO search_rows (source, notice_id, created_at) SELECT 'notice', id, created_at FROM notices;
-- Where in the output an earlier entry was parsed is not recorded: its result opens the run's terminal
-- at its live end (null), rather than at a guess.
INSERT INTO search_rows (source, run_id, event_id, byte_offset, created_at)
  SELECT 'timeline', e.run_id, e.id, NULL, e.created_at FROM run_events e WHERE e.kind IN ${indexedTimelineKinds};
INSERT INTO search_text (rowid, text)
  SELECT s.id, CASE s.source
    WHEN 'task' THEN (SELECT t.title || char(10) || t.prompt FROM tasks t WHERE t.id = s.task_id)
    WHEN 'notice' THEN (SELECT n.title || char(10) || n.message FROM notices n WHERE n.id = s.notice_id)
    ELSE coalesce((SELECT ${timelineText('e')} FROM run_events e WHERE e.id = s.event_id), '')
  END
  FROM search_rows s;
`;
