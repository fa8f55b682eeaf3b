import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { AiConnection } from '../../../shared/entities';
import { OperatorError } from '../../../shared/errors';
import { aConnection, anAgent, aProvider, createdConnection } from '../../testing/contract-fixtures';
import { fakeOperatorClient, type ChannelAnswers } from '../../testing/fake-operator-client';
import { renderInConsole } from '../../testing/render-in-console';
import { ConnectionDialog } from './connection-dialog';
import type { ConnectionForAgent } from './connection-form';

const claude = aProvider({ id: 'claude-code', displayName: 'Claude Code', connectionProviders: ['anthropic'] });

function connectionClient(answers: ChannelAnswers = {}) {
  return fakeOperatorClient({
    listAgents: () => [anAgent(), anAgent({ id: 'agent_2', name: 'Claude reviewer', providerId: 'claude-code' })],
    getCatalog: () => ({ providers: [aProvider(), claude] }),
    createConnection: (input) => createdConnection(input),
    ...answers,
  });
}

function openDialog(props: { connection?: AiConnection; forAgent?: ConnectionForAgent } = {}, client = connectionClient()) {
  const onSaved = vi.fn();
  const onClose = vi.fn();
  const rendered = renderInConsole(<ConnectionDialog {...props} onClose={onClose} onSaved={onSaved} />, { client });
  const dialog = screen.getByRole('dialog', { name: props.connection ? `Edit ${props.connection.name}` : 'New AI connection' });
  return { ...rendered, client, dialog, onSaved, onClose };
}

describe('the AI-connection dialog', () => {
  it('names each missing field at the field, focuses the first, and sends nothing', async () => {
    const { user, dialog, client } = openDialog();
    await user.click(within(dialog).getByRole('button', { name: 'Create connection' }));
    const name = within(dialog).getByRole('textbox', { name: 'Name' });
    expect(document.activeElement).toBe(name);
    expect(name.getAttribute('aria-invalid')).toBe('true');
    expect(within(dialog).getByText('Give the connection a name.')).toBeTruthy();
    expect(within(dialog).getByText('Enter the API key.')).toBeTruthy();
    expect(client.inputsOf('createConnection')).toEqual([]);

    // Typing in a field takes its problem away; the others stay until the next submit.
    await user.type(name, 'Team key');
    expect(within(dialog).queryByText('Give the connection a name.')).toBeNull();
    expect(within(dialog).getByText('Enter the API key.')).toBeTruthy();
  });

  it('creates the connection with the key read from its field, then wipes the field', async () => {
    const { user, dialog, client, onSaved } = openDialog();
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), '  Team key ');
    const key = within(dialog).getByLabelText<HTMLInputElement>('API key');
    await user.type(key, 'sk-test-1234');
    await user.click(within(dialog).getByRole('radio', { name: 'Shared' }));
    await user.click(within(dialog).getByRole('button', { name: 'Create connection' }));

    await vi.waitFor(() => expect(onSaved).toHaveBeenCalledOnce());
    expect(client.inputsOf('createConnection')).toEqual([
      { name: 'Team key', provider: 'openai', method: 'api_key', baseUrl: null, ownership: 'shared', agentScope: 'all', agentIds: [], secret: 'sk-test-1234' },
    ]);
    expect(onSaved.mock.calls[0]![0]).toMatchObject({ id: 'con_new', name: 'Team key' });
    expect(key.value).toBe('');
  });

  it('a custom provider needs its server’s base URL; a subscription token is Anthropic’s alone', async () => {
    const { user, dialog } = openDialog();
    const method = within(dialog).getByRole('combobox', { name: 'Method' });
    const token = within(method).getByRole<HTMLOptionElement>('option', { name: 'Subscription token (Anthropic only)' });
    expect(token.disabled).toBe(true);

    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Provider' }), 'Anthropic');
    expect(within(method).getByRole<HTMLOptionElement>('option', { name: 'Subscription token' }).disabled).toBe(false);
    await user.selectOptions(method, 'Subscription token');
    // The secret is a token now, and is called one.
    expect(within(dialog).getByLabelText('Token')).toBeTruthy();
    expect(within(dialog).getByText('Claude Code’s long-lived sign-in token, made with claude setup-token.')).toBeTruthy();

    // Another provider takes no token: the method falls back to an API key.
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Provider' }), 'Custom (OpenAI-compatible)');
    expect((method as HTMLSelectElement).value).toBe('api_key');
    const baseUrl = within(dialog).getByRole('textbox', { name: 'Base URL' });
    expect(baseUrl.getAttribute('placeholder')).toBe('http://127.0.0.1:11434/v1');
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Local server');
    await user.type(within(dialog).getByLabelText('API key'), 'local-key');
    await user.click(within(dialog).getByRole('button', { name: 'Create connection' }));
    expect(within(dialog).getByText('A custom (OpenAI-compatible) connection needs the base URL of its server, e.g. http://127.0.0.1:11434/v1.')).toBeTruthy();
    expect(document.activeElement).toBe(baseUrl);
  });

  it('made for an agent, offers only the providers its CLI can use and is shared with that agent', async () => {
    const { user, dialog, client } = openDialog({ forAgent: { id: 'agent_1', name: 'Codex writer', connectionProviders: ['openai', 'openrouter'] } });
    expect(within(dialog).getByText(/^For Codex writer: once created, Codex writer uses it\./)).toBeTruthy();
    const providers = within(within(dialog).getByRole('combobox', { name: 'Provider' })).getAllByRole('option');
    expect(providers.map((option) => option.textContent)).toEqual(['OpenAI', 'OpenRouter']);
    expect(within(dialog).getByRole<HTMLInputElement>('radio', { name: 'Chosen agents' }).checked).toBe(true);

    const agents = await within(dialog).findByRole('list', { name: 'Agents that may use it' });
    const own = within(agents).getByRole<HTMLInputElement>('checkbox', { name: 'Codex writer', description: 'Made for it: it uses this connection once it is created.' });
    expect(own.checked && own.disabled).toBe(true);
    // Another agent says whether its CLI can use this provider at all.
    expect(within(agents).getByRole('checkbox', { name: 'Claude reviewer', description: 'Claude Code — its CLI cannot use a OpenAI connection' })).toBeTruthy();

    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Codex key');
    await user.type(within(dialog).getByLabelText('API key'), 'sk-codex');
    await user.click(within(dialog).getByRole('button', { name: 'Create connection' }));
    await vi.waitFor(() => expect(client.inputsOf('createConnection')).toHaveLength(1));
    expect(client.inputsOf('createConnection')[0]).toMatchObject({ agentScope: 'chosen', agentIds: ['agent_1'] });
  });

  it('made for a new agent, lists it as chosen though it has no id yet, and asks for no other agent', async () => {
    const { user, dialog, client } = openDialog({ forAgent: { id: null, name: 'Night shift', connectionProviders: ['openai'] } });
    const agents = await within(dialog).findByRole('list', { name: 'Agents that may use it' });
    const newAgent = within(agents).getByRole<HTMLInputElement>('checkbox', { name: 'Night shift (the new agent)' });
    expect(newAgent.checked && newAgent.disabled).toBe(true);

    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Night key');
    await user.type(within(dialog).getByLabelText('API key'), 'sk-night');
    await user.click(within(dialog).getByRole('button', { name: 'Create connection' }));
    await vi.waitFor(() => expect(client.inputsOf('createConnection')).toHaveLength(1));
    expect(client.inputsOf('createConnection')[0]).toMatchObject({ agentScope: 'chosen', agentIds: [] });
    expect(within(dialog).queryByText('Choose at least one agent, or let all agents use it.')).toBeNull();
  });

  it('asks for at least one agent when the operator chose to name them', async () => {
    const { user, dialog, client } = openDialog();
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Team key');
    await user.type(within(dialog).getByLabelText('API key'), 'sk-team');
    await user.click(within(dialog).getByRole('radio', { name: 'Chosen agents' }));
    await user.click(within(dialog).getByRole('button', { name: 'Create connection' }));
    expect(within(dialog).getByText('Choose at least one agent, or let all agents use it.')).toBeTruthy();
    expect(client.inputsOf('createConnection')).toEqual([]);

    await user.click(within(dialog).getByRole('checkbox', { name: 'Claude reviewer' }));
    await user.click(within(dialog).getByRole('button', { name: 'Create connection' }));
    await vi.waitFor(() => expect(client.inputsOf('createConnection')).toHaveLength(1));
    expect(client.inputsOf('createConnection')[0]).toMatchObject({ agentScope: 'chosen', agentIds: ['agent_2'] });
  });

  it('editing sends only what changed, and says so when nothing did', async () => {
    const connection = aConnection();
    const client = connectionClient({ updateConnection: (input) => aConnection({ ...connection, name: input.name ?? connection.name }) });
    const { user, dialog, onSaved } = openDialog({ connection }, client);
    expect(within(dialog).getByText('Leave empty to keep the stored API key, OpenAI …a1b2. A new one replaces it.')).toBeTruthy();

    await user.click(within(dialog).getByRole('button', { name: 'Save changes' }));
    expect(within(dialog).getByText('Nothing to save: the connection is unchanged.')).toBeTruthy();
    expect(client.inputsOf('updateConnection')).toEqual([]);

    const name = within(dialog).getByRole('textbox', { name: 'Name' });
    await user.clear(name);
    await user.type(name, 'Team key 2');
    await user.click(within(dialog).getByRole('button', { name: 'Save changes' }));
    await vi.waitFor(() => expect(onSaved).toHaveBeenCalledOnce());
    expect(client.inputsOf('updateConnection')).toEqual([{ connectionId: connection.id, name: 'Team key 2' }]);
  });

  it('shows the core’s refusal under the form', async () => {
    const client = connectionClient({
      createConnection: () => {
        throw new OperatorError({ code: 'conflict', message: 'A connection named Team key exists already: choose another name.' });
      },
    });
    const { user, dialog, onSaved } = openDialog({}, client);
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Team key');
    await user.type(within(dialog).getByLabelText('API key'), 'sk-team');
    await user.click(within(dialog).getByRole('button', { name: 'Create connection' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe(
      'Could not create the connection. A connection named Team key exists already: choose another name.',
    );
    expect(onSaved).not.toHaveBeenCalled();
  });
});
