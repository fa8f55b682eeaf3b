import path from 'node:path';
import type { LaunchRequest, LaunchSpec, LaunchTarget } from '../launch';
import { hasFlag, launchSpec, providerHomePath, requireSessionId } from '../launch';
import type { ProviderHomeLayout } from '../home-layout';
import type { ProviderLaunch } from '../provider-definition';

/**
 * Codex CLI (checked against codex-cli 0.171.0):
 *   new:    codex exec --json -C <view> --skip-git-repo-check <sandbox> --model <m> [profile] -- <prompt>
 *   resume: codex exec --json -C <view> --skip-git-repo-check <sandbox> --model <m> [profile] resume <thread_id> -- <prompt>
 * `-C` is an `exec` option that `exec resume` does not list, so every option goes before `resume`
 * (clap accepts them there; verified against the real CLI). `--` keeps a prompt that starts with a
 * dash from being read as a flag. The thread id is only known from the `thread.started` event.
 */
const sandboxFlags = ['--dangerously-bypass-approvals-and-sandbox', '--sandbox', '-s', '--approve-for-me'];

export function codexLaunch(home: ProviderHomeLayout): ProviderLaunch {
  return {
    resumable: true,
    build(target: LaunchTarget, request: LaunchRequest): LaunchSpec {
      const { profile, model } = request.agent;
      const view = request.taskRoot.view;
      const args = ['exec', '--json', '-C', view, '--skip-git-repo-check'];
      if (!hasFlag(profile.args, sandboxFlags)) {
        // Inside the console's OS sandbox Codex cannot set up its own (and need not: the console is the
        // sandbox); outside it, Codex's workspace-write sandbox is the only fence around the run.
        if (request.environmentKind === 'sandboxed') args.push('--dangerously-bypass-approvals-and-sandbox');
        else args.push('--sandbox', 'workspace-write');
      }
      args.push('--model', model, ...profile.args);

      const codexHome = providerHomePath(home, request.taskRoot.cache);
      const sessionsDir = codexHome === null ? null : path.join(codexHome, 'sessions');
      const session = request.session ?? { mode: 'new' };
      let locator: LaunchSpec['session'];
      if (session.mode === 'resume') {
        const threadId = requireSessionId(target, session.sessionId);
        args.push('resume', threadId);
        locator = { id: threadId, dir: session.sessionDir ?? sessionsDir, source: 'argv' };
      } else {
        // An ephemeral run writes no rollout, so there is nothing to resume later.
        locator = hasFlag(profile.args, ['--ephemeral']) ? null : { id: null, dir: sessionsDir, source: 'stream' };
      }
      args.push('--', request.prompt);

      return launchSpec(target, home, request, args, locator);
    },
  };
}
