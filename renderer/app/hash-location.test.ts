import { describe, expect, it } from 'vitest';
import { actionRoute } from '../../shared/routes';
import { splitHashRoute } from './hash-location';

describe('splitHashRoute', () => {
  it('matches the path without the query that action links may carry', () => {
    expect(splitHashRoute(actionRoute({ kind: 'tasks', projectId: 'prj 1' }))).toEqual({
      path: '/tasks',
      search: 'project=prj%201',
    });
  });

  it('treats an empty hash as the root and tolerates a missing leading slash', () => {
    expect(splitHashRoute('')).toEqual({ path: '/', search: '' });
    expect(splitHashRoute('#')).toEqual({ path: '/', search: '' });
    expect(splitHashRoute('#runs/run_1')).toEqual({ path: '/runs/run_1', search: '' });
  });

  it('round-trips every route the core can put in a notice', () => {
    expect(splitHashRoute(actionRoute({ kind: 'agent-ai-connection', agentId: 'agt_1' })).path).toBe(
      '/agents/agt_1/ai-connection',
    );
    expect(splitHashRoute(actionRoute({ kind: 'settings-projects' })).path).toBe('/settings/projects');
  });
});
