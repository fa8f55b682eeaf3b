/**
 * The forge's compare / new pull-request address for a pushed branch, derived from the remote's URL:
 * GitHub, GitLab (nested groups included) and Bitbucket, at their public hosts or a self-hosted one
 * whose name starts with `github.`, `gitlab.` or `bitbucket.`. Any credentials in the URL are
 * dropped; names are URL-encoded. A remote the console does not recognise has no address (null).
 */

export type Forge = 'github' | 'gitlab' | 'bitbucket';

interface RemoteLocation {
  /** The web host, with a port only when the URL was http(s) with one (an ssh port is not the web's). */
  host: string;
  segments: string[];
}

export function compareUrl(remoteUrl: string, branches: { base: string; branch: string }): { forge: Forge; url: string } | null {
  const location = parseRemote(remoteUrl.trim());
  if (!location) return null;
  const forge = forgeOf(location.host);
  if (!forge) return null;
  const { segments } = location;
  if (forge === 'gitlab' ? segments.length < 2 : segments.length !== 2) return null;
  const repository = `https://${location.host}/${segments.map(encodeURIComponent).join('/')}`;
  const base = encodeURIComponent(branches.base);
  const branch = encodeURIComponent(branches.branch);
  switch (forge) {
    case 'github':
      // A branch name's slashes stay slashes in the path, as GitHub writes them.
      return { forge, url: `${repository}/compare/${encodePath(branches.base)}...${encodePath(branches.branch)}?expand=1` };
    case 'gitlab':
      return { forge, url: `${repository}/-/merge_requests/new?merge_request[source_branch]=${branch}&merge_request[target_branch]=${base}` };
    case 'bitbucket':
      return { forge, url: `${repository}/pull-requests/new?source=${branch}&dest=${base}` };
  }
}

function forgeOf(host: string): Forge | null {
  const name = host.toLowerCase().replace(/:\d+$/, '');
  for (const forge of ['github', 'gitlab', 'bitbucket'] as const) {
    const publicHost = forge === 'bitbucket' ? 'bitbucket.org' : `${forge}.com`;
    if (name === publicHost || name.startsWith(`${forge}.`)) return forge;
  }
  return null;
}

/** https://[user[:pass]@]host[:port]/path, ssh://[user@]host[:port]/path, git://host/path, or scp-like [user@]host:path. */
function parseRemote(url: string): RemoteLocation | null {
  let host: string;
  let pathname: string;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme) {
    if (!['https', 'http', 'ssh', 'git', 'git+ssh', 'ssh+git'].includes(scheme)) return null;
    let parsed: URL;
    try {
      // Node's URL parses only special schemes' hosts; the others are read as https for their parts.
      parsed = new URL(url.replace(/^[^:]+:/, 'https:'));
    } catch {
      return null;
    }
    host = scheme === 'https' || scheme === 'http' ? parsed.host : parsed.hostname;
    pathname = decodeURIComponent(parsed.pathname);
  } else {
    const scp = /^(?:[^@/]+@)?([^:/]+):(.+)$/.exec(url);
    if (!scp?.[1] || !scp[2]) return null;
    host = scp[1];
    pathname = scp[2];
  }
  const segments = pathname.replace(/\/+$/, '').replace(/\.git$/, '').split('/').filter(Boolean);
  if (!host || segments.length === 0 || segments.some((segment) => segment === '.' || segment === '..')) return null;
  return { host: host.toLowerCase(), segments };
}

function encodePath(name: string): string {
  return name.split('/').map(encodeURIComponent).join('/');
}
