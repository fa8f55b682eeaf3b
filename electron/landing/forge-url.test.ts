import { describe, expect, it } from 'vitest';
import { compareUrl } from './forge-url';

const branches = { base: 'main', branch: 'operator-console/run_1' };

describe('compareUrl', () => {
  it('gives GitHub’s compare address for https, scp-like and ssh:// remotes', () => {
    const expected = { forge: 'github', url: 'https://github.com/acme/widget/compare/main...operator-console/run_1?expand=1' };
    for (const remote of [
      'https://github.com/acme/widget.git',
      'https://github.com/acme/widget',
      'https://x-access-token:ghp_secret@github.com/acme/widget.git',
      'git@github.com:acme/widget.git',
      'git@github.com:acme/widget',
      'ssh://git@github.com/acme/widget.git',
      'ssh://git@github.com:22/acme/widget.git/',
    ]) {
      expect(compareUrl(remote, branches)).toEqual(expected);
    }
  });

  it('gives GitLab’s new merge request address, nested groups included', () => {
    expect(compareUrl('git@gitlab.com:group/sub/project.git', branches)).toEqual({
      forge: 'gitlab',
      url: 'https://gitlab.com/group/sub/project/-/merge_requests/new?merge_request[source_branch]=operator-console%2Frun_1&merge_request[target_branch]=main',
    });
    expect(compareUrl('https://oauth2:glpat-secret@gitlab.com/group/project.git', branches)?.url).toBe(
      'https://gitlab.com/group/project/-/merge_requests/new?merge_request[source_branch]=operator-console%2Frun_1&merge_request[target_branch]=main',
    );
  });

  it('gives Bitbucket’s new pull request address', () => {
    const expected = { forge: 'bitbucket', url: 'https://bitbucket.org/team/repo/pull-requests/new?source=operator-console%2Frun_1&dest=main' };
    expect(compareUrl('https://alice@bitbucket.org/team/repo.git', branches)).toEqual(expected);
    expect(compareUrl('git@bitbucket.org:team/repo.git', branches)).toEqual(expected);
  });

  it('knows self-hosted forges by their host name, keeping an https port and dropping an ssh one', () => {
    expect(compareUrl('ssh://git@gitlab.example.com:2222/platform/api.git', branches)?.url).toMatch(/^https:\/\/gitlab\.example\.com\/platform\/api\/-\/merge_requests\/new\?/);
    expect(compareUrl('https://github.corp.example:8443/o/r.git', branches)?.url).toBe('https://github.corp.example:8443/o/r/compare/main...operator-console/run_1?expand=1');
  });

  it('never puts credentials in the address, and encodes names', () => {
    const result = compareUrl('https://user:p%40ss@github.com/acme/widget.git', { base: 'release 1', branch: 'fix#2' });
    expect(result?.url).toBe('https://github.com/acme/widget/compare/release%201...fix%232?expand=1');
    expect(result?.url).not.toMatch(/user|p%40ss|pass/);
  });

  it('has no address for an unknown host, a local path or an incomplete repository path', () => {
    for (const remote of ['https://example.com/o/r.git', '/srv/git/repo.git', 'file:///srv/git/repo.git', '../repo', 'https://github.com/only-owner', 'https://github.com/o/r/extra', 'git@gitlab.com:alone.git', '']) {
      expect(compareUrl(remote, branches)).toBeNull();
    }
  });
});
