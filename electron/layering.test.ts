import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ESLint } from 'eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

/**
 * The layering of DESIGN.md section 2 is kept by the import rules in eslint.config.js (`npm run lint`).
 * This runs that config on small sources placed in the real folders, so a rule that stops matching
 * (a moved folder, a resolver that no longer finds the files) fails here instead of passing silently.
 * Types are not needed for import rules, so the type-aware part is switched off to keep this quick.
 */

const repoRoot = path.resolve(import.meta.dirname, '..');
const eslint = new ESLint({ cwd: repoRoot, overrideConfig: [tseslint.configs.disableTypeChecked] });
const boundaryRules = new Set(['import-x/no-restricted-paths', '@typescript-eslint/no-restricted-imports']);

/** The boundary findings for `code` as if it were the file at `file` (relative to the repository). */
async function boundaryFindings(file: string, code: string, linter = eslint): Promise<string[]> {
  const [result] = await linter.lintText(code, { filePath: path.join(repoRoot, file) });
  return (result?.messages ?? []).filter((message) => message.ruleId !== null && boundaryRules.has(message.ruleId)).map((message) => message.message);
}

/** The import-cycle findings for `code` as if it were the file at `file`. */
async function cycleFindings(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(repoRoot, file) });
  return (result?.messages ?? []).filter((message) => message.ruleId === 'local/no-import-cycle').map((message) => message.message);
}

interface OrderException {
  file: string;
  imports: string;
  why: string;
}
type Zone = { target: string; from: string[]; except?: string[]; message: string };

// The config is plain JavaScript (checked by tsconfig.js.json); these are the parts the tests read.
const config = (await import(pathToFileURL(path.join(repoRoot, 'eslint.config.js')).href)) as {
  folderOrder: string[];
  orderExceptions: OrderException[];
  orderZones(exceptions: OrderException[]): Zone[];
};
const cycles = (await import(pathToFileURL(path.join(repoRoot, 'scripts/eslint-import-cycles.mjs')).href)) as {
  importsOf(text: string, file: string): { target: string | null }[];
};

const read = (file: string) => fs.readFileSync(path.join(repoRoot, file), 'utf8');

/** Where a file of electron/ sits in the folder order (its folder, or itself at the top level). */
function placeOf(file: string): number {
  return config.folderOrder.indexOf(path.relative('electron', file).split('/')[0] ?? '');
}

/** Why each exception is no longer needed: its import is gone, or it does not go against the order. */
function unneededExceptions(exceptions: OrderException[]): string[] {
  return exceptions.flatMap((exception) => {
    if (!fs.existsSync(path.join(repoRoot, exception.file))) return [`${exception.file} is gone`];
    const targets = cycles.importsOf(read(exception.file), path.join(repoRoot, exception.file)).map((imported) => imported.target && path.relative(repoRoot, imported.target));
    if (!targets.includes(exception.imports)) return [`${exception.file} no longer imports ${exception.imports}`];
    if (placeOf(exception.imports) < placeOf(exception.file)) return [`${exception.file} → ${exception.imports} goes down the order: it needs no exception`];
    return [];
  });
}

describe('the layering rules', () => {
  it('only the Electron shell imports electron, however it is imported', async () => {
    for (const code of [
      "import { app } from 'electron';\nexport const name = app.name;",
      "import type { WebContents } from 'electron';\nexport type Contents = WebContents;",
      "export { ipcMain } from 'electron';",
      "export async function openPath(file: string) {\n  const { shell } = await import('electron');\n  return shell.openPath(file);\n}",
      "import { ipcRenderer } from 'electron/renderer';\nexport const send = ipcRenderer.send;",
    ]) {
      expect(await boundaryFindings('electron/agents/layering-fixture.ts', code), code).toEqual([expect.stringContaining('Only the Electron shell')]);
    }
    expect(await boundaryFindings('electron/core-fixture.ts', "import { app } from 'electron';\nexport const name = app.name;")).toHaveLength(1);
    expect(await boundaryFindings('renderer/layering-fixture.ts', "import { app } from 'electron';\nexport const name = app.name;")).not.toEqual([]);

    const shell = "import { app } from 'electron';\nexport const name = app.name;";
    expect(await boundaryFindings('electron/shell/layering-fixture.ts', shell)).toEqual([]);
    expect(await boundaryFindings('electron/main.ts', shell)).toEqual([]);
    expect(await boundaryFindings('electron/preload.ts', shell)).toEqual([]);
    expect(await boundaryFindings('electron/agents/layering-fixture.ts', "import { x } from './electron-stand-ins';\nexport const y = x;")).toEqual([]);
  });

  it('a domain folder does not import the transports; its integration tests may', async () => {
    const code = "import { createRequestDispatcher } from '../transport/request-dispatcher';\nexport const make = createRequestDispatcher;";
    expect(await boundaryFindings('electron/tasks/layering-fixture.ts', code)).toEqual([expect.stringContaining('A domain folder does not know how it is reached')]);
    const host = "import { startHostServer } from '../host/host-server';\nexport const start = startHostServer;";
    expect(await boundaryFindings('electron/ledger/layering-fixture.ts', host)).toHaveLength(1);
    expect(await boundaryFindings('electron/environments/layering-fixture.ts', code)).toHaveLength(1);
    expect(await boundaryFindings('electron/tasks/layering-fixture.test.ts', code)).toEqual([]);
    // The composition root wires the transports to the core.
    expect(await boundaryFindings('electron/core-fixture.ts', code.replace('../transport', './transport'))).toEqual([]);
  });

  it('provider definitions do not import the run lifecycle', async () => {
    const code = "import { admitRun } from '../runs/admission';\nexport const admit = admitRun;";
    expect(await boundaryFindings('electron/providers/layering-fixture.ts', code)).toEqual([expect.stringContaining('Provider definitions describe a CLI')]);
    expect(await boundaryFindings('electron/landing/layering-fixture.ts', code)).toEqual([]);
  });

  it('providers/ is a leaf: it imports no other folder of the core but platform/', async () => {
    for (const code of [
      // The circle issue 26 found: each CLI's delivery took its helpers from connections/.
      "import { SecretKeeper } from '../connections/secret-vault';\nexport const keeper = SecretKeeper;",
      "import type { TaskRoot } from '../task-root/task-root-layout';\nexport type Root = TaskRoot;",
      "import { buildConfinedEnvironment } from '../sandbox/confined-environment';\nexport const build = buildConfinedEnvironment;",
      "export { newId } from '../ledger/ids';",
    ]) {
      expect(await boundaryFindings('electron/providers/layering-fixture.ts', code), code).toEqual([expect.stringContaining('Provider definitions describe a CLI')]);
      expect(await boundaryFindings('electron/providers/codex/layering-fixture.ts', code.replaceAll("'../", "'../../")), code).toHaveLength(1);
    }
    expect(await boundaryFindings('electron/providers/layering-fixture.ts', "import { findResourceFile } from '../platform/resource-file';\nexport const find = findResourceFile;")).toEqual([]);
    expect(await boundaryFindings('electron/providers/codex/layering-fixture.ts', "import { launchSpec } from '../launch';\nexport const spec = launchSpec;")).toEqual([]);
  });

  it('shared/ imports only shared/ and packages; the renderer only renderer/, shared/ and packages', async () => {
    const core = "import { createMemoryLogger } from '../electron/platform/log';\nexport const log = createMemoryLogger;";
    expect(await boundaryFindings('shared/layering-fixture.ts', core)).toEqual([expect.stringContaining('shared/ is the contract')]);
    expect(await boundaryFindings('renderer/layering-fixture.ts', core)).toEqual([expect.stringContaining('The renderer is web code')]);
    expect(await boundaryFindings('shared/layering-fixture.ts', "import { z } from 'zod';\nimport { runRoute } from './routes';\nexport const a = [z, runRoute];")).toEqual([]);
    expect(await boundaryFindings('renderer/layering-fixture.ts', "import { useState } from 'react';\nimport { runRoute } from '../shared/routes';\nexport const a = [useState, runRoute];")).toEqual([]);
  });
});

describe('the folder order', () => {
  it('a folder imports only the folders before it in folderOrder, type-only imports too', async () => {
    const upward = "import { RunService } from '../runs/run-service';\nexport const service = RunService;";
    expect(await boundaryFindings('electron/ledger/layering-fixture.ts', upward)).toEqual([expect.stringContaining('comes before it in folderOrder')]);
    expect(await boundaryFindings('electron/ledger/layering-fixture.ts', "import type { RunService } from '../runs/run-service';\nexport type Service = RunService;")).toHaveLength(1);
    // The back-edges issue 26 found, each one step against the order.
    expect(await boundaryFindings('electron/connections/layering-fixture.ts', "import { admitRun } from '../runs/admission';\nexport const admit = admitRun;")).toHaveLength(1);
    expect(await boundaryFindings('electron/pty/layering-fixture.ts', "import { secretHint } from '../connections/probe';\nexport const hint = secretHint;")).toHaveLength(1);
    expect(await boundaryFindings('electron/platform/layering-fixture.ts', "import { newId } from '../ledger/ids';\nexport const id = newId;")).toHaveLength(1);
    expect(await boundaryFindings('electron/sandbox/layering-fixture.ts', "import type { TaskRoot } from '../task-root/task-root-layout';\nexport type Root = TaskRoot;")).toHaveLength(1);
    expect(await boundaryFindings('electron/core.ts', "import { startHostServer } from './host/host-server';\nexport const start = startHostServer;")).toHaveLength(1);

    // Down the order is what it is for; a folder's tests may drive the whole console.
    expect(await boundaryFindings('electron/runs/layering-fixture.ts', "import { newId } from '../ledger/ids';\nexport const id = newId;")).toEqual([]);
    expect(await boundaryFindings('electron/task-root/layering-fixture.ts', "import { runTool } from '../sandbox/tool-sandbox';\nexport const run = runTool;")).toEqual([]);
    expect(await boundaryFindings('electron/ledger/layering-fixture.test.ts', upward)).toEqual([]);
    expect(await boundaryFindings('electron/ledger/layering.fixture.ts', upward)).toEqual([]);
  });

  it('every folder of electron/, and every file at its top, has its place in the order', () => {
    const entries = fs.readdirSync(path.join(repoRoot, 'electron'), { withFileTypes: true });
    const unplaced = entries
      .filter((entry) => (entry.isDirectory() ? entry.name !== 'testing' : /\.tsx?$/.test(entry.name) && !/\.(test|d)\.tsx?$/.test(entry.name)))
      .map((entry) => entry.name)
      .filter((name) => !config.folderOrder.includes(name));
    expect(unplaced).toEqual([]);
    expect(config.folderOrder.filter((name) => !entries.some((entry) => entry.name === name))).toEqual([]);
  });

  it('an exception to the order stays listed only while its import is there and goes against the order', () => {
    expect(unneededExceptions(config.orderExceptions)).toEqual([]);
    // The ratchet catches both ways an exception becomes unneeded.
    expect(unneededExceptions([{ file: 'electron/ledger/ids.ts', imports: 'electron/runs/run-service.ts', why: '' }])).toEqual([expect.stringContaining('no longer imports')]);
    expect(unneededExceptions([{ file: 'electron/runs/run-service.ts', imports: 'electron/ledger/ids.ts', why: '' }])).toEqual([expect.stringContaining('goes down the order')]);
    expect(unneededExceptions([{ file: 'electron/ledger/gone.ts', imports: 'electron/runs/run-service.ts', why: '' }])).toEqual([expect.stringContaining('is gone')]);
  });

  it('an exception lets its own file make its own import, and nothing else', async () => {
    const exception = { file: 'electron/ledger/layering-fixture.ts', imports: 'electron/runs/run-service.ts', why: 'a test' };
    const linter = new ESLint({
      cwd: repoRoot,
      overrideConfigFile: true,
      overrideConfig: [
        {
          files: ['**/*.ts'],
          languageOptions: { parser: tseslint.parser },
          plugins: { 'import-x': importX },
          settings: { 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts'], symlinks: false })] },
          rules: { 'import-x/no-restricted-paths': ['error', { basePath: repoRoot, zones: config.orderZones([exception]) }] },
        },
      ],
    });
    expect(await boundaryFindings(exception.file, "import { RunService } from '../runs/run-service';\nexport const s = RunService;", linter)).toEqual([]);
    expect(await boundaryFindings(exception.file, "import { RunScheduler } from '../runs/run-scheduler';\nexport const s = RunScheduler;", linter)).toHaveLength(1);
    expect(await boundaryFindings(exception.file, "import { LandingService } from '../landing/landing-service';\nexport const s = LandingService;", linter)).toHaveLength(1);
  });
});

describe('import cycles', () => {
  it('an import that leads back to the importer is reported, through `import type` and `export from` too', async () => {
    const ids = read('electron/ledger/ids.ts');
    expect(await cycleFindings('electron/ledger/ids.ts', ids)).toEqual([]);
    for (const line of [
      "import type { RunsRepository } from './runs-repository';\nexport type Runs = RunsRepository;",
      "import { RunsRepository } from './runs-repository';\nexport const Runs = RunsRepository;",
      "export type { RunsRepository } from './runs-repository';",
    ]) {
      expect(await cycleFindings('electron/ledger/ids.ts', `${ids}\n${line}\n`), line).toEqual([
        expect.stringContaining('Import cycle: electron/ledger/ids.ts → electron/ledger/runs-repository.ts → electron/ledger/ids.ts.'),
      ]);
    }
  });

  it('a cycle across folders is reported with the way back', async () => {
    // The shape of the circle issue 26 found: a provider's type reaching into confinement, which reads the providers.
    const definition = read('electron/providers/provider-definition.ts');
    const code = `${definition}\nimport type { ConfinedFolders } from '../sandbox/confined-environment';\nexport type Folders = ConfinedFolders;\n`;
    expect(await cycleFindings('electron/providers/provider-definition.ts', code)).toEqual([
      expect.stringContaining('electron/providers/provider-definition.ts → electron/sandbox/confined-environment.ts → electron/providers/definitions.ts → electron/providers/provider-definition.ts'),
    ]);
    expect(await cycleFindings('electron/providers/provider-definition.ts', definition)).toEqual([]);
  });
});
