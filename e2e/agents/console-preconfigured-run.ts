import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { consoleTestTimeoutMs, firstFile, installTimeoutMs, runTimeoutMs, type ConsoleExpectations } from './console-expectations';
import type { ConsoleBed } from './console-harness';
import { ended, listTree, openConsoleBed } from './console-harness';
import type { RunUsage } from '../../shared/usage';
import { ensureAgentClis } from './install.mjs';
import { sumReportedUsage } from './model-servers';
import type { AgentProviderId } from './run-cli';
import { providerEntry } from './run-cli';

/** Point 6 of console-suite.ts: the operator's own login (a preconfigured home), in the local environment. */
export function describePreconfiguredRun(providerId: AgentProviderId, expected: ConsoleExpectations): void {
  const provider = providerEntry(providerId);

  describe(`${provider.displayName} through the console: local environment, preconfigured home (the operator's own login)`, { timeout: consoleTestTimeoutMs }, () => {
    let bed: ConsoleBed;
    let login: Record<string, string> = {};

    beforeAll(async () => {
      await ensureAgentClis();
      bed = await openConsoleBed(providerId, {
        mode: 'preconfigured',
        setupOperatorHome: (home, context) => {
          login = expected.operatorLogin(context);
          writeHomeFiles(home, login);
        },
      });
    }, installTimeoutMs);
    afterAll(async () => {
      // Every process group the runs started is gone once the console has closed.
      if (bed) expect(await bed.close()).toEqual([]);
    });

    test('6. runs in the local environment with the operator\'s login, linked into the task\'s provider home', async () => {
      const homeBefore = listTree(bed.operatorHome);
      const task = await bed.createTask(firstFile);
      const run = await bed.startRun(task.id);
      expect(run.status).not.toBe('refused');
      const detail = await bed.waitForRun(run.id, ended, runTimeoutMs);
      const context = await bed.describe(run.id);
      expect(detail.status, context).toBe('succeeded');
      expect(detail.confinement).toMatchObject({ environmentKind: 'local', sandbox: 'none', homeMode: 'preconfigured' });
      expect(detail.connection).toBeNull();
      expect(existsSync(path.join(bed.taskRoot(run.id).view, firstFile)), context).toBe(true);
      expect(readFileSync(path.join(bed.taskRoot(run.id).view, firstFile), 'utf8')).toBe(bed.server.script.fileContent);
      expect((await bed.diff(run.id)).files).toContainEqual({ path: firstFile, status: 'added', additions: expect.any(Number), deletions: 0 });

      // The key came from the operator's own files, as the CLI reads them.
      for (const request of bed.server.modelRequests()) expect(request.headers[expected.keyHeader], context).toBe(expected.keyValue(bed.apiKey));
      expect(bed.server.modelRequests().length).toBeGreaterThan(0);

      // Usage on the operator's own login: billed so (priced, with the caveat), counted as the server reported it.
      const served = sumReportedUsage(bed.server.modelRequests());
      const usage = await bed.call<RunUsage>('getRunUsage', { runId: run.id });
      expect(usage, context).toMatchObject({ reported: true, billing: 'operator_login', providerId });
      expect(usage.total, context).toEqual(expected.reportsReasoning ? served : { ...served, reasoning: 0 });

      // The task's provider home: links to the operator's files, the CLI's own state beside them.
      const home = bed.providerHome(run.id);
      for (const [linkPath, target] of Object.entries(expected.linkedFiles)) {
        const link = path.join(home, linkPath);
        expect(lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink(), `${linkPath} is a link\n${listTree(home).join('\n')}`).toBe(true);
        expect(readlinkSync(link)).toBe(path.join(bed.operatorHome, target));
      }
      const state = listTree(home);
      expect(state.some((file) => expected.sessionState.test(file)), state.join('\n')).toBe(true);
      // Runtime state stayed in the task: the operator's home holds what it held before.
      expect(listTree(bed.operatorHome)).toEqual(homeBefore);
      expect(listTree(bed.taskRoot(run.id).home)).toEqual([]);
    });
  });
}

function writeHomeFiles(home: string, files: Record<string, string>): void {
  for (const [relative, content] of Object.entries(files)) {
    const target = path.join(home, relative);
    mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    writeFileSync(target, content, { mode: 0o600 });
  }
}
