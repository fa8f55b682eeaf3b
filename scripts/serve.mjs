// `npm run serve -- [--port N] [--data-dir DIR]`: builds the console if it has not been built, then
// starts the browser host. Stdout must stay exactly one line (the address), so the build's own output
// goes to stderr.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuilt, repoRoot } from './ensure-built.mjs';

ensureBuilt(['dist/electron/serve.js', 'dist/renderer/index.html']);

/** @type {unknown} The build's module, whose types are electron/service/serve.ts's. */
const serve = await import(pathToFileURL(path.join(repoRoot, 'dist', 'electron', 'serve.js')).href);
await /** @type {{ main(argv: string[]): Promise<void> }} */ (serve).main(process.argv.slice(2));
