import path from 'node:path';
import type { LaunchRequest, LaunchSpec, LaunchTarget } from '../launch';
import { argvSession, hasFlag, launchSpec, providerHomePath } from '../launch';
import type { ProviderHomeLayout } from '../home-layout';
import type { ProviderLaunch } from '../provider-definition';

/**
 * Gemini CLI (checked against 0.61.0):
 *   new:    gemini --prompt=<prompt> -o stream-json --model <m> --skip-trust --session-id <uuid> --approval-mode yolo [profile]
 *   resume: gemini --prompt=<prompt> -o stream-json --model <m> --skip-trust --resume <uuid> --approval-mode yolo [profile]
 * `--prompt=<text>` rather than `-p <text>`: yargs reads a prompt that starts with a dash as a flag
 * ("Not enough arguments following: p"). Headless runs in an untrusted folder fail (exit 55) unless
 * --skip-trust is given, and a task view is always a fresh folder. `--session-id` only starts new
 * sessions (an existing id is refused); `--resume` accepts the full UUID. Sessions are stored under
 * <GEMINI_CLI_HOME>/.gemini/tmp/<project>/chats/.
 */
const approvalFlags = ['--approval-mode', '--yolo', '-y'];

export function geminiCliLaunch(home: ProviderHomeLayout): ProviderLaunch {
  return {
    resumable: true,
    build(target: LaunchTarget, request: LaunchRequest): LaunchSpec {
      const { profile, model } = request.agent;
      const args = [`--prompt=${request.prompt}`, '-o', 'stream-json', '--model', model, '--skip-trust'];

      const geminiHome = providerHomePath(home, request.taskRoot.cache);
      const sessionsDir = geminiHome === null ? null : path.join(geminiHome, '.gemini', 'tmp');
      const { id: sessionId, dir: sessionDir, flags: sessionFlags } = argvSession(target, request, sessionsDir);
      args.push(...sessionFlags);
      if (!hasFlag(profile.args, approvalFlags)) args.push('--approval-mode', 'yolo');
      args.push(...profile.args);

      return launchSpec(target, home, request, args, { id: sessionId, dir: sessionDir, source: 'argv' });
    },
  };
}
