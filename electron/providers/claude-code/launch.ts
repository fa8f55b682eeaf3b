import path from 'node:path';
import type { LaunchRequest, LaunchSpec, LaunchTarget } from '../launch';
import { argvSession, hasFlag, launchSpec, providerHomePath } from '../launch';
import type { ProviderHomeLayout } from '../home-layout';
import type { ProviderLaunch } from '../provider-definition';

/**
 * Claude Code (checked against 2.1.197):
 *   new:    claude -p --output-format stream-json --verbose --session-id <uuid> --model <m> --permission-mode acceptEdits [profile] -- <prompt>
 *   resume: claude -p --output-format stream-json --verbose --resume <uuid> --model <m> --permission-mode acceptEdits [profile] -- <prompt>
 * stream-json needs --verbose in print mode. Without a permission mode a headless run cannot write
 * files; a profile may choose another (e.g. bypassPermissions in the sandbox). `--` ends the options,
 * which matters because some Claude options (--add-dir, --allowedTools) take several values and would
 * otherwise swallow the prompt. Sessions live in <CLAUDE_CONFIG_DIR>/projects/<encoded cwd>/<uuid>.jsonl.
 */
const permissionFlags = ['--permission-mode', '--dangerously-skip-permissions'];

export function claudeCodeLaunch(home: ProviderHomeLayout): ProviderLaunch {
  return {
    resumable: true,
    build(target: LaunchTarget, request: LaunchRequest): LaunchSpec {
      const { profile, model } = request.agent;
      const args = ['-p', '--output-format', 'stream-json', '--verbose'];

      const configDir = providerHomePath(home, request.taskRoot.cache);
      const projectsDir = configDir === null ? null : path.join(configDir, 'projects');
      const { id: sessionId, dir: sessionDir, flags: sessionFlags } = argvSession(target, request, projectsDir);
      args.push(...sessionFlags);

      args.push('--model', model);
      if (!hasFlag(profile.args, permissionFlags)) args.push('--permission-mode', 'acceptEdits');
      args.push(...profile.args, '--', request.prompt);

      return launchSpec(target, home, request, args, { id: sessionId, dir: sessionDir, source: 'argv' });
    },
  };
}
