import { expect, it } from 'vitest';
import { versionChoiceQuestion } from './version-choice';

/** The desktop app's question when its data directory's service runs another version (main.ts shows it). */

const older = { type: 'other-version' as const, consoleVersion: '0.0.9', contractVersion: 'c1e1-00000000', pid: 4242, liveRuns: 2, handingOverTo: null };

it('names the version that runs the runs and offers the two ways on, letting them finish first', () => {
  const question = versionChoiceQuestion(older, 'refused', '0.1.0');
  expect(question.message).toBe('Version 0.0.9 of the console service is running 2 runs');
  expect(question.buttons).toEqual(['Let them finish, switch afterwards', 'Restart now', 'Quit']);
  expect(question.detail).toContain('This app is version 0.1.0.');
  expect(question.detail).toContain('Let them finish and switch afterwards: the older service starts no new run, stops when its last run ends, and version 0.1.0 starts by itself then');
  expect(question.detail).toContain('Or restart now: runs still going are stopped and marked stranded, and each can be resumed.');
});

it('says when the older service is already handing over, and quotes a service too old to say what it runs', () => {
  expect(versionChoiceQuestion({ ...older, liveRuns: 1, handingOverTo: '0.1.0' }, 'refused', '0.1.0').detail).toContain(
    'That service is already finishing its runs; version 0.1.0 starts by itself when they end. Let it finish',
  );
  expect(versionChoiceQuestion(undefined, 'The console service running here is version 0.0.1.', '0.1.0')).toEqual({
    message: 'Another version of the console service runs here',
    detail: 'The console service running here is version 0.0.1.',
    buttons: ['Let them finish, switch afterwards', 'Restart now', 'Quit'],
  });
});
