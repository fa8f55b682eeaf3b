import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cliTestTimeoutMs, describeAgent, installTimeoutMs, testApiKey } from './agent-suite';
import { ensureAgentClis } from './install.mjs';
import type { ModelServer } from './model-servers';
import { conversationOf, startModelServer } from './model-servers';
import type { AgentWorkspace } from './run-cli';
import { createWorkspace, runCli } from './run-cli';

// Codex CLI 0.171.0: a custom Responses-API provider in CODEX_HOME/config.toml, the key from CODEX_API_KEY.
describeAgent('codex', {
  keyHeader: 'authorization',
  keyValue: (key) => `Bearer ${key}`,
  // The catalog's default model (gpt-6.2-sol) gets Codex's "code mode": one freeform `exec` tool whose
  // JavaScript calls tools.apply_patch; exec prints the patch as a file_change item and no tool item.
  workEvents: ['file_change'],
  sessionState: /^sessions\/.+\/rollout-.+\.jsonl$/,
  exitOn401: 1,
  // "exceeded retry limit, last status: 429 Too Many Requests": the body and Retry-After are dropped.
  resetObserved: false,
  recoversFromOneDrop: false,
});

describe('Codex CLI: tool sets and its own sandbox', { timeout: cliTestTimeoutMs }, () => {
  let server: ModelServer;
  const workspaces: AgentWorkspace[] = [];
  const outside = path.join('/var/tmp', `e2e-agents-codex-outside-${process.pid}.txt`);

  beforeAll(async () => {
    await ensureAgentClis();
  }, installTimeoutMs);
  afterAll(async () => {
    await server?.close();
    rmSync(outside, { force: true });
    for (const workspace of workspaces) workspace.cleanup();
  });

  async function runWith(options: { fileTool?: string; fileName?: string; model: string; environmentKind: 'local' | 'sandboxed'; prompt?: string }) {
    await server?.close();
    server = await startModelServer('openai-responses', {
      ...(options.fileTool ? { fileTool: options.fileTool } : {}),
      ...(options.fileName ? { script: { fileName: options.fileName } } : {}),
    });
    const workspace = createWorkspace('codex');
    workspaces.push(workspace);
    const result = await runCli({
      providerId: 'codex',
      workspace,
      model: options.model,
      environmentKind: options.environmentKind,
      connection: { baseUrl: server.baseUrl, apiKey: testApiKey('codex') },
      prompt: options.prompt ?? 'Please create the file hello.txt.',
    });
    return { result, workspace };
  }

  test('gpt-5.5 gets the classic tools: apply_patch as a top-level freeform tool', async () => {
    const { result, workspace } = await runWith({ model: 'gpt-5.5', environmentKind: 'local' });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(server.modelRequests()[0]?.outcome).toMatchObject({ type: 'tool_call', tool: 'apply_patch' });
    expect(readFileSync(path.join(workspace.taskRoot.view, 'hello.txt'), 'utf8')).toBe(server.script.fileContent);
    expect(result.events.some((event) => event.kind === 'file_change')).toBe(true);
  });

  test('local: Codex runs shell commands in its own sandbox (workspace-write), which refuses writes outside the view', async () => {
    rmSync(outside, { force: true });
    const { result } = await runWith({ model: 'gpt-5.5', fileTool: 'exec_command', fileName: outside, environmentKind: 'local', prompt: 'Write the note.' });
    expect(result.launch.args).toContain('workspace-write');
    expect(result.exitCode, result.stderr).toBe(0);
    // (codex exec --json printed no command_execution item for this refused command; the model saw the error.)
    expect(existsSync(outside)).toBe(false);
    const history = conversationOf('openai-responses', server.modelRequests()[1]?.body);
    expect(history.toolResults.join('\n')).toContain('Read-only file system');
  });

  test('sandboxed: Codex bypasses its own sandbox (the console is the sandbox), so the same write goes through', async () => {
    rmSync(outside, { force: true });
    const { result } = await runWith({ model: 'gpt-5.5', fileTool: 'exec_command', fileName: outside, environmentKind: 'sandboxed', prompt: 'Write the note.' });
    expect(result.launch.args).toContain('--dangerously-bypass-approvals-and-sandbox');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(existsSync(outside)).toBe(true);
    rmSync(outside, { force: true });
  });
});
