// `npm run ledger:restore -- [--data-dir DIR] [BACKUP]`: puts a ledger backup (a file in the data
// directory's backups/ folder; the newest when none is named) in the ledger's place, with no console
// running. The damaged ledger is moved aside, never deleted. See electron/ledger/restore-ledger-command.ts.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuilt, repoRoot } from './ensure-built.mjs';

ensureBuilt(['dist/electron/restore-ledger.js']);

/** @type {unknown} The build's module, whose types are electron/ledger/restore-ledger-command.ts's. */
const command = await import(pathToFileURL(path.join(repoRoot, 'dist', 'electron', 'restore-ledger.js')).href);
await /** @type {{ main(argv: string[]): Promise<void> }} */ (command).main(process.argv.slice(2));
