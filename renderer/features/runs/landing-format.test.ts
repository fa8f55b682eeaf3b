import { describe, expect, it } from 'vitest';
import { aLandingPlan } from '../../testing/contract-fixtures';
import { defaultLandTarget, listFew, webAddress } from './landing-format';

describe('landing’s words', () => {
  it('links only web addresses: a remote could name any scheme', () => {
    expect(webAddress('https://gitlab.com/ada/shop/-/merge_requests/new?merge_request%5Bsource_branch%5D=console%2Frun_1')).toMatch(/^https:\/\/gitlab\.com\//);
    expect(webAddress('javascript:alert(1)')).toBeNull();
    expect(webAddress('file:///etc/passwd')).toBeNull();
    expect(webAddress('not a url')).toBeNull();
    expect(webAddress(null)).toBeNull();
  });

  it('names the first few and counts the rest', () => {
    expect(listFew(['a'])).toBe('a');
    expect(listFew(['a', 'b', 'c'])).toBe('a, b, c');
    expect(listFew(['a', 'b', 'c', 'd', 'e'])).toBe('a, b, c and 2 more');
  });

  it('lands in the base branch by default, unless it is gone', () => {
    expect(defaultLandTarget(aLandingPlan({ baseBranch: 'release', target: 'main' }))).toBe('release');
    expect(defaultLandTarget(aLandingPlan({ baseBranch: 'deleted-branch', target: 'main' }))).toBe('main');
    expect(defaultLandTarget(aLandingPlan({ baseBranch: null, target: 'main' }))).toBe('main');
  });
});
