import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { Host } from '../../../shared/hosts';
import { fakeOperatorClient } from '../../testing/fake-operator-client';
import { renderInConsole } from '../../testing/render-in-console';
import { SettingsPage } from '../settings/settings-page';

const host: Host = { id: 'hst_1', name: 'build-box', addedAt: 1, lastTest: null, environmentIds: [] };

describe('New environment with an SSH host', () => {
  it('says what the host gets of the AI credentials once one is chosen', async () => {
    const client = fakeOperatorClient({ listHosts: () => [host], listEnvironments: () => [], listAgents: () => [] });
    const { user } = renderInConsole(<SettingsPage section="environments" />, { client, route: '/settings/environments' });
    await user.click(await screen.findByRole('button', { name: 'New environment' }));
    expect(screen.queryByRole('note', { name: 'Where the AI key goes' })).toBeNull();

    await user.selectOptions(await screen.findByRole('combobox', { name: 'SSH host' }), 'build-box');
    const note = screen.getByRole('note', { name: 'Where the AI key goes' });
    expect(note.textContent).toContain('AI keys stay on this machine');
    expect(note.textContent).toContain('the login file its CLI reads, such as Codex’s auth.json) and removed from it when the run ends');
    expect(note.textContent).toContain('Your own login (a preconfigured home) is never copied to a host.');
  });

  it('says that a provider-only run’s traffic leaves from this machine, so a host only the SSH host reaches is not reached', async () => {
    const client = fakeOperatorClient({ listHosts: () => [host], listEnvironments: () => [], listAgents: () => [] });
    const { user } = renderInConsole(<SettingsPage section="environments" />, { client, route: '/settings/environments' });
    await user.click(await screen.findByRole('button', { name: 'New environment' }));
    expect(screen.queryByRole('note', { name: 'Where the run’s traffic leaves from' })).toBeNull();

    await user.selectOptions(await screen.findByRole('combobox', { name: 'SSH host' }), 'build-box');
    const note = screen.getByRole('note', { name: 'Where the run’s traffic leaves from' });
    expect(note.textContent).toContain('a run on the host reaches its model and the allowed hosts from this machine');
    expect(note.textContent).toContain('an allowed host that only the SSH host can reach');
    expect(note.textContent).toContain('choose the network Open');
  });

  it('warns, for the network Open, that it is the host’s network the run shares', async () => {
    const client = fakeOperatorClient({ listHosts: () => [host], listEnvironments: () => [], listAgents: () => [] });
    const { user } = renderInConsole(<SettingsPage section="environments" />, { client, route: '/settings/environments' });
    await user.click(await screen.findByRole('button', { name: 'New environment' }));
    await user.click(screen.getByRole('radio', { name: 'Open' }));
    expect(screen.getByText(/with an open network/).textContent).toContain('services on this machine');

    await user.selectOptions(await screen.findByRole('combobox', { name: 'SSH host' }), 'build-box');
    const warning = screen.getByText(/with an open network/).textContent;
    expect(warning).toContain('any host the SSH host can reach');
    expect(warning).toContain('the sandbox shares the host’s network, not this machine’s');
  });
});
