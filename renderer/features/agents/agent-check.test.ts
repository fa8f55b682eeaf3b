import { describe, expect, it } from 'vitest';
import { latestAgentCheck } from './agent-check';

const refused = {
  state: 'refused' as const,
  code: 'configuration_incomplete',
  reason: 'ai_connection_required',
  message: 'Choose an AI connection for Sandboxed fixture.',
  actionUrl: '#/agents/agt_1/ai-connection',
  configRevision: 'rev1',
  checkedAt: '2026-11-29T10:00:00.000Z',
};

describe('what the agent page says about admission', () => {
  it('is "not checked" without a verification or a Test', () => {
    expect(latestAgentCheck(undefined, undefined)).toEqual({ state: 'unverified', checkedAt: null });
  });

  it('shows the recorded verification, with the fix link of a refusal', () => {
    expect(latestAgentCheck(refused, undefined)).toMatchObject({ state: 'refused', actionUrl: '#/agents/agt_1/ai-connection' });
  });

  it('shows whichever is newer: a Test just pressed, or a verification redone after a change', () => {
    const test = { ok: true, checkedAt: '2026-11-29T10:05:00.000Z', message: 'Runs would be admitted.' };
    expect(latestAgentCheck(refused, test)).toMatchObject({ state: 'ok', message: 'Runs would be admitted.' });
    const reverified = { ...refused, state: 'ok' as const, message: 'Ready.', checkedAt: '2026-11-29T10:06:00.000Z' };
    expect(latestAgentCheck(reverified, test)).toMatchObject({ state: 'ok', message: 'Ready.' });
    expect(latestAgentCheck({ ...refused, checkedAt: null }, test).state).toBe('ok');
  });
});
