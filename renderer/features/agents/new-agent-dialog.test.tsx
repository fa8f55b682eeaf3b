import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { ChannelParsedInput } from '../../../shared/contract';
import { aConnection, anAgent, anEnvironment, aProvider, createdAgent, createdConnection } from '../../testing/contract-fixtures';
import { fakeOperatorClient, type ChannelAnswers } from '../../testing/fake-operator-client';
import { renderInConsole } from '../../testing/render-in-console';
import { NewAgentDialog } from './new-agent-dialog';

const sandbox = anEnvironment({ id: 'env_sandbox', name: 'Sandbox', kind: 'sandboxed', networkMode: 'provider-only', requiresConnection: true });

/** The core's answer to checkAgentDraft: a sandboxed agent with no connection would be refused. */
function draftCheck(input: ChannelParsedInput<'checkAgentDraft'>) {
  const needs = input.environmentId === sandbox.id || input.homeMode === 'isolated';
  return needs && !input.connectionId
    ? { ok: false, checkedAt: '2026-03-02T09:00:00.000Z', message: 'A sandboxed run needs an AI connection: choose one.', code: 'configuration_incomplete' }
    : { ok: true, checkedAt: '2026-03-02T09:00:00.000Z', message: 'A run would be admitted.' };
}

function newAgentClient(answers: ChannelAnswers = {}) {
  return fakeOperatorClient({
    getCatalog: () => ({ providers: [aProvider()] }),
    listEnvironments: () => [anEnvironment(), sandbox],
    listConnections: () => [
      aConnection(),
      aConnection({ id: 'con_anthropic', name: 'Claude key', provider: 'anthropic', secretHint: 'Anthropic …9f9f' }),
      aConnection({ id: 'con_revoked', name: 'Old key', status: 'revoked' }),
      aConnection({ id: 'con_chosen', name: 'Someone else’s key', agentScope: 'chosen', agentIds: ['agent_9'] }),
    ],
    checkAgentDraft: draftCheck,
    ...answers,
  });
}

async function openNewAgent(client = newAgentClient()) {
  const onCreated = vi.fn();
  const rendered = renderInConsole(<NewAgentDialog onClose={() => undefined} onCreated={onCreated} />, { client });
  const dialog = screen.getByRole('dialog', { name: 'New agent' });
  const picker = await within(dialog).findByRole('combobox', { name: 'AI connection' });
  return { ...rendered, client, dialog, picker, onCreated };
}

const optionNames = (select: HTMLElement) => within(select).getAllByRole('option').map((option) => option.textContent);

describe('New agent’s AI connection', () => {
  it('offers only usable connections shared with all agents, of a provider its CLI speaks', async () => {
    const { dialog, picker } = await openNewAgent();
    await vi.waitFor(() => expect(optionNames(picker)).toEqual(['None', 'Team key · OpenAI …a1b2']));
    expect(within(dialog).getByText(/^Not needed for a local agent with your own login/)).toBeTruthy();
  });

  it('says before saving that a sandboxed agent without a connection would be refused, and that it is ready once one is chosen', async () => {
    const { user, dialog, picker } = await openNewAgent();
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Environment' }), 'Sandboxed · Provider API only');
    // A sandboxed run must not see the operator's login: the home becomes isolated, the connection required.
    expect(within(dialog).getByRole<HTMLSelectElement>('combobox', { name: 'Home mode' }).value).toBe('isolated');
    expect(within(dialog).getByText('Required here: the agent’s runs get this connection’s key instead of your own login.')).toBeTruthy();
    const preview = await within(dialog).findByRole('status', { name: 'First run' });
    await vi.waitFor(() => expect(preview.textContent).toBe('Its runs would be refused as it stands. A sandboxed run needs an AI connection: choose one.'));

    await user.selectOptions(picker, 'Team key · OpenAI …a1b2');
    await vi.waitFor(() => expect(within(dialog).getByRole('status', { name: 'First run' }).textContent).toBe('Ready. A run would be admitted.'));
  });

  it('Create an AI connection opens the connection form for the new agent, and the new connection is chosen at once', async () => {
    const client = newAgentClient({
      listAgents: () => [anAgent()],
      createConnection: (input) => createdConnection(input, { secretHint: 'OpenAI …ffff' }),
    });
    const { user, dialog, picker } = await openNewAgent(client);
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Night shift');
    await user.click(within(dialog).getByRole('button', { name: 'Create an AI connection' }));

    const form = screen.getByRole('dialog', { name: 'New AI connection' });
    expect(within(form).getByText(/^For Night shift: once created, Night shift uses it\./)).toBeTruthy();
    await user.type(within(form).getByRole('textbox', { name: 'Name' }), 'Night key');
    await user.type(within(form).getByLabelText('API key'), 'sk-night');
    // The connection's own form is submitted, not New agent's around it.
    client.answer({ listConnections: () => [aConnection(), aConnection({ id: 'con_new', name: 'Night key', agentScope: 'chosen', secretHint: 'OpenAI …ffff' })] });
    await user.click(within(form).getByRole('button', { name: 'Create connection' }));

    await vi.waitFor(() => expect(screen.queryByRole('dialog', { name: 'New AI connection' })).toBeNull());
    await vi.waitFor(() => expect((picker as HTMLSelectElement).value).toBe('con_new'));
    expect(optionNames(picker)).toEqual(['None', 'Team key · OpenAI …a1b2', 'Night key · OpenAI …ffff']);
    expect(client.inputsOf('createAgent')).toEqual([]);
  });

  it('Create agent sends the fields and the chosen connection, and names a missing name first', async () => {
    const client = newAgentClient({ createAgent: createdAgent });
    const { user, dialog, picker, onCreated } = await openNewAgent(client);
    await user.click(within(dialog).getByRole('button', { name: 'Create agent' }));
    expect(within(dialog).getByText('Give the agent a name.')).toBeTruthy();
    expect(document.activeElement).toBe(within(dialog).getByRole('textbox', { name: 'Name' }));

    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Night shift');
    await vi.waitFor(() => expect(optionNames(picker)).toHaveLength(2));
    await user.selectOptions(picker, 'Team key · OpenAI …a1b2');
    await user.click(within(dialog).getByRole('button', { name: 'Create agent' }));
    await vi.waitFor(() => expect(onCreated).toHaveBeenCalledOnce());
    expect(client.inputsOf('createAgent')).toEqual([
      {
        name: 'Night shift',
        providerId: 'codex',
        model: 'gpt-5-codex',
        profileId: 'default',
        capacity: 1,
        homeMode: 'preconfigured',
        executablePath: null,
        environmentId: 'env_local',
        connectionId: 'con_1',
      },
    ]);
  });
});
