import { describe, expect, it } from 'vitest';
import { OperatorError } from '../../shared/errors';
import { operatorActionUrl, operatorMessage, safeActionHref } from './error-message';

describe('operatorMessage', () => {
  it('shows the core’s own message, which names the fix', () => {
    const error = new OperatorError({ code: 'path_not_found', message: 'There is no folder at /nope.' });
    expect(operatorMessage(error)).toBe('There is no folder at /nope.');
  });

  it('replaces internal faults with a plain sentence, never their text or stack', () => {
    const message = operatorMessage(new TypeError("Cannot read properties of undefined (reading 'x')"));
    expect(message).not.toContain('undefined');
    expect(message).toMatch(/try again/i);
  });
});

describe('action links', () => {
  it('keeps in-app hash routes', () => {
    expect(safeActionHref('#/agents/agt_1/ai-connection')).toBe('#/agents/agt_1/ai-connection');
    const error = new OperatorError({ code: 'configuration_incomplete', message: 'm', actionUrl: '#/settings/ai-connections' });
    expect(operatorActionUrl(error)).toBe('#/settings/ai-connections');
  });

  it('drops anything that is not an in-app route', () => {
    expect(safeActionHref('javascript:alert(1)')).toBeUndefined();
    expect(safeActionHref('https://example.com/')).toBeUndefined();
    expect(safeActionHref(null)).toBeUndefined();
  });
});
