import { describe, expect, it } from 'vitest';
import { chooseTasksProject, promptPreview } from './tasks-project';

const projects = [{ id: 'prj_a' }, { id: 'prj_b' }, { id: 'prj_c' }];

describe('chooseTasksProject', () => {
  it('follows the project an action link names', () => {
    expect(chooseTasksProject(projects, 'prj_c', 'prj_b')).toBe('prj_c');
  });

  it('falls back to the project shown last, then to the first', () => {
    expect(chooseTasksProject(projects, null, 'prj_b')).toBe('prj_b');
    expect(chooseTasksProject(projects, null, null)).toBe('prj_a');
  });

  it('ignores a project that has been removed', () => {
    expect(chooseTasksProject(projects, 'prj_gone', 'prj_gone_too')).toBe('prj_a');
    expect(chooseTasksProject([], 'prj_a', null)).toBeNull();
  });
});

describe('promptPreview', () => {
  it('shows the first line of a prompt, shortened', () => {
    expect(promptPreview('  Fix the login bug\nDetails follow')).toBe('Fix the login bug');
    expect(promptPreview('x'.repeat(200), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});
