import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bed, closeConnectionBeds, codexAgent, createConnection, ended, key, sandboxed, servers } from '../testing/connection-test-kit';
import { startTestModelServer } from '../testing/model-server';
import { present } from '../testing/run-test-kit';
import { keyFileName } from './secret-vault';

/**
 * AI connections as the operator sets them up (issue 5): sealed at rest, tested at their base URL,
 * offered only to the agents that may use them, bound to a new agent, and what an agent's Test says.
 */

afterEach(closeConnectionBeds);

describe('AI connections', () => {
  it('seal the secret at rest (key file 0600, ciphertext in the ledger) and show only a hint', async () => {
    const b = await bed();
    const connection = await createConnection(b);
    expect(connection).toMatchObject({ secretHint: `OpenAI …${key.slice(-4)}`, storage: 'aes-256-gcm-key-file', status: 'connected', updating: false });
    expect(JSON.stringify(connection)).not.toContain(key);
    expect(statSync(path.join(b.dataDir, keyFileName)).mode & 0o777).toBe(0o600);
    const { secret_ref: sealed } = b.core.ledger.db.prepare('SELECT secret_ref FROM ai_connections WHERE id = ?').get(connection.id) as { secret_ref: string };
    expect(sealed.startsWith('aes-256-gcm-key-file:')).toBe(true);
    expect(sealed).not.toContain(key);
    expect(await b.call('getVaultInfo')).toMatchObject({ kind: 'aes-256-gcm-key-file', protects: true, description: expect.stringContaining(keyFileName) });
    // No output schema carries a secret: even a handler that returned one would have it stripped.
    const updated = await b.call('updateConnection', { connectionId: connection.id, name: 'Renamed' });
    expect(updated.secretHint).toBe(connection.secretHint);
    expect(b.decrypts()).toBe(0);
  });

  it('are tested against the provider’s models endpoint at their base URL, and the result is kept', async () => {
    const b = await bed();
    const server = await startTestModelServer({ key, models: ['m1'] });
    servers.push(server);
    const connection = await createConnection(b, { provider: 'custom', baseUrl: `${server.origin}/v1`, name: 'Local' });
    const result = await b.call('testConnection', { connectionId: connection.id });
    expect(result).toMatchObject({ ok: true, message: expect.stringContaining('1 model') });
    expect(server.requests[0]).toMatchObject({ path: '/v1/models', headers: { authorization: `Bearer ${key}` } });
    expect((await b.call('listConnections'))[0]).toMatchObject({ status: 'connected', lastTest: { ok: true } });

    const wrong = await b.call('updateConnection', { connectionId: connection.id, secret: 'sk-test-not-the-key-000000000000' });
    expect(wrong.lastTest).toBeNull(); // a new key: the old result says nothing about it
    expect(await b.call('testConnection', { connectionId: connection.id })).toMatchObject({ ok: false, code: 'auth_required' });
    expect((await b.call('listConnections'))[0]).toMatchObject({ status: 'needs_attention', lastTest: { ok: false, code: 'auth_required' } });
  });

  it('are offered in an agent’s picker only when the agent may use them', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--lines', '1'], sandboxed);
    const other = await b.createAgent(['--lines', '1'], sandboxed);
    const mine = await createConnection(b, { name: 'Mine', agentScope: 'chosen', agentIds: [agent.id] });
    const theirs = await createConnection(b, { name: 'Theirs', agentScope: 'chosen', agentIds: [other.id] });
    const anthropic = await createConnection(b, { name: 'Anthropic', provider: 'anthropic', secret: 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz' });
    const revoked = await createConnection(b, { name: 'Revoked' });
    await b.call('updateConnection', { connectionId: revoked.id, revoked: true });

    const offered = (await b.call('listConnectionsForAgent', { agentId: agent.id })).map((connection) => connection.name);
    expect(offered).toEqual(['Mine']);
    await expect(b.call('setAgentConnection', { agentId: agent.id, connectionId: theirs.id })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(b.call('setAgentConnection', { agentId: agent.id, connectionId: anthropic.id })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(b.call('setAgentConnection', { agentId: agent.id, connectionId: revoked.id })).rejects.toMatchObject({ code: 'invalid_request' });
    expect((await b.call('setAgentConnection', { agentId: agent.id, connectionId: mine.id })).connectionId).toBe(mine.id);

    // Revoking the bound one refuses the agent's next run (and the picker still shows the current choice).
    await b.call('updateConnection', { connectionId: mine.id, revoked: true });
    expect((await b.call('listConnectionsForAgent', { agentId: agent.id })).map((connection) => connection.name)).toEqual(['Mine']);
    const task = await b.createTask();
    const run = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    expect(run.status).toBe('refused');
    expect((await b.call('getRun', { runId: run.id })).failure?.message).toMatch(/“Mine” was revoked/);

    // Deleting a connection unbinds the agents that used it.
    await b.call('deleteConnection', { connectionId: mine.id });
    expect((await b.call('getAgent', { agentId: agent.id })).connectionId).toBeNull();
  });
});

describe('New agent, bound from the start', () => {
  it('previews what the first run would meet on the unsaved fields, saving and starting nothing', async () => {
    const b = await bed();
    const fields = { name: 'Draft', providerId: 'fixture-codex', model: 'model-a', profileId: 'default', ...sandboxed };
    const none = await b.call('checkAgentDraft', fields);
    expect(none).toMatchObject({ ok: false, code: 'configuration_incomplete', reason: 'ai_connection_required' });
    expect(none.message).toMatch(/^Choose an AI connection for Draft\. It runs in the .* environment, which needs a managed AI connection\.$/);
    const preconfigured = await b.call('checkAgentDraft', { ...fields, homeMode: 'preconfigured' });
    expect(preconfigured).toMatchObject({ ok: false, reason: 'ai_connection_required', message: expect.stringMatching(/needs an isolated home/) });

    // A connection shared with chosen agents only: binding it at creation would share it, so it counts.
    const chosen = await createConnection(b, { name: 'Chosen only', agentScope: 'chosen', agentIds: [] });
    expect(await b.call('checkAgentDraft', { ...fields, connectionId: chosen.id })).toMatchObject({
      ok: true,
      message: expect.stringContaining('AI connection “Chosen only”'),
    });
    const anthropic = await createConnection(b, { name: 'Wrong provider', provider: 'anthropic' });
    expect(await b.call('checkAgentDraft', { ...fields, connectionId: anthropic.id })).toMatchObject({ ok: false });
    // A field the save would refuse is said in the save's words. (Models are open: one the catalog does
    // not list is fine; one the CLI would read as a flag is not.)
    expect(await b.call('checkAgentDraft', { ...fields, model: '--no-such-model' })).toMatchObject({
      ok: false,
      code: 'invalid_request',
      message: expect.stringContaining('cannot take the model “--no-such-model”'),
    });
    expect(await b.call('checkAgentDraft', { ...fields, model: 'a-model-of-next-week', connectionId: chosen.id })).toMatchObject({ ok: true });

    expect(await b.call('listAgents')).toEqual([]);
    expect(b.decrypts()).toBe(0);
  });

  it('creates a sandboxed agent bound to a connection (shared with it if need be) whose first run is admitted', async () => {
    const b = await bed();
    const chosen = await createConnection(b, { name: 'Chosen only', agentScope: 'chosen', agentIds: [] });
    const agent = await codexAgent(b, 'bound at birth', 'default', { ...sandboxed, connectionId: chosen.id });
    expect(agent).toMatchObject({ connectionId: chosen.id, verification: { state: 'ok' } });
    expect((await b.call('listConnections'))[0]).toMatchObject({ id: chosen.id, agentScope: 'chosen', agentIds: [agent.id] });
    const task = await b.createTask('First run');
    const run = await b.waitForRun((await b.call('startRun', { taskId: task.id, agentId: agent.id })).id, ended);
    expect(run.status).toBe('succeeded');

    // A connection its CLI cannot use is refused before the agent is made: nothing is left behind.
    const anthropic = await createConnection(b, { name: 'Wrong provider', provider: 'anthropic' });
    await expect(codexAgent(b, 'never made', 'default', { ...sandboxed, connectionId: anthropic.id })).rejects.toMatchObject({
      code: 'invalid_request',
      reason: 'ai_connection_not_usable',
    });
    expect((await b.call('listAgents')).map((each) => each.name)).toEqual(['bound at birth']);
  });
});

describe('the agent’s Test probe and verification', () => {
  it('answer with the admission rule without starting anything, and verification waits for the configuration to change', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--lines', '1'], sandboxed);
    const tested = await b.call('testAgent', { agentId: agent.id });
    expect(tested).toMatchObject({
      ok: false,
      code: 'configuration_incomplete',
      reason: 'ai_connection_required',
      actionUrl: `#/agents/${agent.id}/ai-connection`,
      message: expect.stringContaining(`Choose an AI connection for ${agent.name}`),
    });
    expect(existsSync(path.join(b.dataDir, 'tasks'))).toBe(false);
    expect(b.decrypts()).toBe(0);
    expect(b.core.ledger.db.prepare('SELECT count(*) AS n FROM runs').get()).toEqual({ n: 0 });

    const refused = (await b.call('getAgent', { agentId: agent.id })).verification;
    expect(refused).toMatchObject({ state: 'refused', reason: 'ai_connection_required', configRevision: expect.any(String), checkedAt: expect.any(String) });
    // Unchanged configuration: verification is not attempted again.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await b.call('verifyAgent', { agentId: agent.id })).verification).toEqual(refused);

    // The fix changes the configuration: verification runs again, and passes.
    const connection = await createConnection(b);
    const bound = await b.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
    expect(bound.verification).toMatchObject({ state: 'ok' });
    expect(present(bound.verification, 'verification').configRevision).not.toBe(present(refused, 'refused verification').configRevision);
    expect(await b.call('testAgent', { agentId: agent.id })).toMatchObject({ ok: true, message: expect.stringContaining('Fixture OpenAI') });
    expect(b.decrypts()).toBe(0);
  });
});
