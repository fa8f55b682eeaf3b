import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import type { SearchReaderReply, SearchReaderRequest, SearchReaderWorkerData } from './search-reader-protocol';
import { SearchResultsReader } from './search-results';

/**
 * The search's queries and snippet reads, on their own thread with their own read-only connection
 * to the ledger: a query over a GiB of output (a phrase of common words, a filter far back) takes
 * what it takes here, while the event loop goes on carrying live output to viewers.
 *
 * This file imports nothing but Node's built-ins and siblings that do the same (better-sqlite3 is
 * required from the path the main thread names): from source each runs as a transformed module with
 * nowhere to resolve packages from (platform/worker-module.ts). It never writes: WAL lets it read
 * beside the main connection and the output writer.
 */

const data = workerData as SearchReaderWorkerData;
const Database = createRequire(data.requireFrom)('better-sqlite3') as typeof BetterSqlite3;
const db = new Database(data.file, { readonly: true, fileMustExist: true, ...(data.nativeBinding ? { nativeBinding: data.nativeBinding } : {}) });
db.pragma('busy_timeout = 5000');
const reader = new SearchResultsReader(db);

const port = parentPort!;
port.on('message', (request: SearchReaderRequest) => {
  if (request.type === 'close') {
    db.close();
    port.postMessage({ type: 'closed' } satisfies SearchReaderReply);
    port.close();
    return;
  }
  let reply: SearchReaderReply;
  try {
    reply = { type: 'found', id: request.id, page: reader.find(request.query) };
  } catch (error) {
    const sqliteCode = error instanceof Database.SqliteError ? error.code : null;
    reply = { type: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error), sqliteCode };
  }
  port.postMessage(reply);
});
