import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { OperatorError } from '../../../shared/errors';
import type { Host, HostTest } from '../../../shared/hosts';
import { fakeOperatorClient, type ChannelAnswers } from '../../testing/fake-operator-client';
import { renderInConsole } from '../../testing/render-in-console';
import { SettingsPage } from '../settings/settings-page';

const destination = { user: 'me', hostname: '10.0.0.7', port: 2222, proxyJump: null };
const trusted = `SHA256:${'a'.repeat(43)}`;
const sent = `SHA256:${'b'.repeat(43)}`;

function aHost(lastTest: HostTest | null): Host {
  return { id: 'hst_1', name: 'build-box', addedAt: 1, lastTest, environmentIds: [] };
}

function showHosts(host: Host, answers: ChannelAnswers = {}) {
  const client = fakeOperatorClient({ listHosts: () => [host], listEnvironments: () => [], ...answers });
  return { ...renderInConsole(<SettingsPage section="hosts" />, { client, route: '/settings/hosts' }), client };
}

describe('Settings → Hosts', () => {
  it('shows a changed host key with both fingerprints and what to check, and offers nothing that would trust it', async () => {
    showHosts(
      aHost({
        outcome: 'host_key_changed',
        testedAt: 1,
        destination,
        known: { type: 'ED25519', fingerprint: trusted, file: '/home/me/.ssh/known_hosts', line: 4 },
        presented: { type: 'ED25519', fingerprint: sent },
      }),
    );
    const region = await screen.findByRole('region', { name: 'Host key of build-box' });
    expect(region.textContent).toContain('The host’s key changed, and ssh refused it.');
    expect(region.textContent).toContain(`ED25519 ${trusted} in /home/me/.ssh/known_hosts, line 4`);
    expect(region.textContent).toContain(`ED25519 ${sent}`);
    expect(region.textContent).toContain('ssh-keygen -R [10.0.0.7]:2222 -f /home/me/.ssh/known_hosts');
    expect(within(region).queryByRole('button')).toBeNull();
    expect(screen.getByText('Host key changed')).toBeTruthy();
  });

  it('trusts an unknown key by the fingerprint it shows, then tests the host again', async () => {
    const { user, client } = showHosts(aHost({ outcome: 'host_key_unknown', testedAt: 1, destination, presented: { type: 'ED25519', fingerprint: sent } }), {
      trustHostKey: () => aHost(null),
      testHost: () => {
        throw new OperatorError({ code: 'ssh_failed', reason: 'auth_failed', message: 'ssh reached build-box but could not log in without asking. Load your key with ssh-add.' });
      },
    });
    const region = await screen.findByRole('region', { name: 'Host key of build-box' });
    expect(region.textContent).toContain(`ED25519 key fingerprint ${sent}`);
    await user.click(within(region).getByRole('button', { name: 'Trust this key' }));
    await waitFor(() => expect(client.inputsOf('testHost')).toEqual([{ hostId: 'hst_1' }]));
    expect(client.inputsOf('trustHostKey')).toEqual([{ hostId: 'hst_1', fingerprint: sent }]);
    expect((await screen.findByRole('alert')).textContent).toContain('Could not test build-box. ssh reached build-box but could not log in without asking.');
  });
});
