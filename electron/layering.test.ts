import path from 'node:path';
import { ESLint } from 'eslint';
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
async function boundaryFindings(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(repoRoot, file) });
  return (result?.messages ?? []).filter((message) => message.ruleId !== null && boundaryRules.has(message.ruleId)).map((message) => message.message);
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
    expect(await boundaryFindings('electron/tasks/layering-fixture.ts', code)).toEqual([]);
  });

  it('shared/ imports only shared/ and packages; the renderer only renderer/, shared/ and packages', async () => {
    const core = "import { createMemoryLogger } from '../electron/platform/log';\nexport const log = createMemoryLogger;";
    expect(await boundaryFindings('shared/layering-fixture.ts', core)).toEqual([expect.stringContaining('shared/ is the contract')]);
    expect(await boundaryFindings('renderer/layering-fixture.ts', core)).toEqual([expect.stringContaining('The renderer is web code')]);
    expect(await boundaryFindings('shared/layering-fixture.ts', "import { z } from 'zod';\nimport { runRoute } from './routes';\nexport const a = [z, runRoute];")).toEqual([]);
    expect(await boundaryFindings('renderer/layering-fixture.ts', "import { useState } from 'react';\nimport { runRoute } from '../shared/routes';\nexport const a = [useState, runRoute];")).toEqual([]);
  });
});
