import { describe, expect, it } from 'vitest';
import { actionPath, actionRoute } from './routes';

describe('action routes', () => {
  it('point at the exact setting that fixes a problem', () => {
    expect(actionRoute({ kind: 'agent-ai-connection', agentId: 'agt_1' })).toBe('#/agents/agt_1/ai-connection');
    expect(actionRoute({ kind: 'agent-home-mode', agentId: 'agt_1' })).toBe('#/agents/agt_1/home-mode');
    expect(actionRoute({ kind: 'agent-executable-path', agentId: 'agt_1' })).toBe('#/agents/agt_1/executable-path');
    expect(actionRoute({ kind: 'settings-ai-connections' })).toBe('#/settings/ai-connections');
    expect(actionRoute({ kind: 'settings-environments' })).toBe('#/settings/environments');
    expect(actionRoute({ kind: 'settings-environment', environmentId: 'env_1', allowHost: '127.0.0.1:4873' })).toBe('#/settings/environments/env_1?allow=127.0.0.1%3A4873');
    expect(actionRoute({ kind: 'project-setup', projectId: 'prj_1', field: 'setup-command' })).toBe('#/settings/projects/prj_1?field=setup-command');
  });

  it('encode ids so a route cannot be bent by what an id contains', () => {
    expect(actionPath({ kind: 'run', runId: 'a/b?c#d' })).toBe('/runs/a%2Fb%3Fc%23d');
    expect(actionPath({ kind: 'settings-environment', environmentId: 'e/1', allowHost: 'a&b=c#d' })).toBe('/settings/environments/e%2F1?allow=a%26b%3Dc%23d');
  });
});
