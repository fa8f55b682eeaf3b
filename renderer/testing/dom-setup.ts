import { cleanup } from '@testing-library/react';
import { afterEach, expect } from 'vitest';
import { fakeClientsOfThisTest } from './fake-operator-client';

// Run before every component test (.test.tsx, vite.config.ts): each test starts on an empty page.
afterEach(() => {
  cleanup();
  const unanswered = [...fakeClientsOfThisTest].flatMap((client) => client.unanswered);
  fakeClientsOfThisTest.clear();
  // A request the test did not expect is a behaviour it did not check.
  expect(unanswered, 'requests the test gave no answer for').toEqual([]);
});
