import { describe, expect, it } from 'vitest';
import { buildWorkerPrompt } from './worker-prompt';

const plan = 'agent-task/m-m/1_fixture/PLAN-cloud-G10.md';
const review = 'agent-task/m-m/1_fixture/CODE_REVIEW-cloud-G10.md';
const withArtifacts = buildWorkerPrompt({ title: 'Cloud G10', prompt: 'Keep the public API unchanged.', planPath: plan, reviewPath: review });

describe('buildWorkerPrompt for a task with plan and review artifacts', () => {
  it('names both artifact paths', () => {
    expect(withArtifacts).toContain(plan);
    expect(withArtifacts).toContain(review);
  });

  it('says this is a direct implementing-worker assignment', () => {
    expect(withArtifacts).toContain('direct implementing-worker assignment');
  });

  it('forbids invoking a task-loop dispatcher', () => {
    expect(withArtifacts).toContain('do not invoke a task-loop dispatcher');
  });

  it('forbids appending a review verdict', () => {
    expect(withArtifacts).toContain('Do not append a review verdict');
  });

  it('forbids archiving, moving, renaming or deleting either active artifact', () => {
    expect(withArtifacts).toContain('archive, move, rename, or delete either active artifact');
  });

  it("keeps the task's title and own instructions", () => {
    expect(withArtifacts).toContain('Cloud G10');
    expect(withArtifacts).toContain('Keep the public API unchanged.');
  });

  it('names the one artifact a task has, with the same rules', () => {
    const planOnly = buildWorkerPrompt({ title: 'T', prompt: '', planPath: plan, reviewPath: null });
    expect(planOnly).toContain(plan);
    expect(planOnly).not.toContain('CODE_REVIEW');
    expect(planOnly).toContain('direct implementing-worker assignment');
    expect(planOnly).toContain('archive, move, rename, or delete either active artifact');
  });

  it('is the same for the same task (so a retried attempt gets the same instructions)', () => {
    expect(buildWorkerPrompt({ title: 'Cloud G10', prompt: 'Keep the public API unchanged.', planPath: plan, reviewPath: review })).toBe(withArtifacts);
  });
});

describe('buildWorkerPrompt for a task without artifacts', () => {
  it("is the task's prompt with its title", () => {
    expect(buildWorkerPrompt({ title: 'Fix the flaky test', prompt: 'Make test X deterministic.', planPath: null, reviewPath: null })).toBe(
      'Fix the flaky test\n\nMake test X deterministic.',
    );
  });

  it('adds none of the artifact rules', () => {
    const prompt = buildWorkerPrompt({ title: 'Fix it', prompt: 'Now.', planPath: null, reviewPath: '  ' });
    expect(prompt).toBe('Fix it\n\nNow.');
    expect(prompt).not.toContain('implementing-worker');
  });

  it('copes with an empty title or an empty prompt', () => {
    expect(buildWorkerPrompt({ title: '', prompt: 'Just this.', planPath: null, reviewPath: null })).toBe('Just this.');
    expect(buildWorkerPrompt({ title: 'Only a title', prompt: '  ', planPath: null, reviewPath: null })).toBe('Only a title');
  });
});
