import { describe, expect, it } from 'vitest';
import { composeDocumentTitle } from './document-title';

describe('the window title', () => {
  it('is the page, then the product, after the open-notice count when there are any', () => {
    expect(composeDocumentTitle('Runs', 3)).toBe('(3) Runs · Operator Console');
    expect(composeDocumentTitle('Runs', 0)).toBe('Runs · Operator Console');
    expect(composeDocumentTitle(undefined, 1)).toBe('(1) Operator Console');
    expect(composeDocumentTitle(undefined, 0)).toBe('Operator Console');
    expect(composeDocumentTitle('Notices', 250)).toBe('(99+) Notices · Operator Console');
  });
});
