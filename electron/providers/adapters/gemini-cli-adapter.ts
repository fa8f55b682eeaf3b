import path from 'node:path';
import type { ProviderEntry } from '../catalog';
import { providerHomePath } from '../catalog';
import type { LaunchRequest, LaunchSpec, ProviderAdapter } from './adapter';
import { argvSession, executableFor, hasFlag, providerEnv } from './adapter';

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

export function createGeminiCliAdapter(provider: ProviderEntry): ProviderAdapter {
  return {
    provider,
    eventFormat: provider.eventFormat,
    supportsResume: true,
    buildLaunch(request: LaunchRequest): LaunchSpec {
      const { profile, model } = request.agent;
      const args = [`--prompt=${request.prompt}`, '-o', 'stream-json', '--model', model, '--skip-trust'];

      const geminiHome = providerHomePath(provider, request.taskRoot.cache);
      const sessionsDir = geminiHome === null ? null : path.join(geminiHome, '.gemini', 'tmp');
      const { id: sessionId, dir: sessionDir, flags: sessionFlags } = argvSession(provider, request, sessionsDir);
      args.push(...sessionFlags);
      if (!hasFlag(profile.args, approvalFlags)) args.push('--approval-mode', 'yolo');
      args.push(...profile.args);

      return {
        executable: executableFor(provider, profile),
        args,
        env: providerEnv(provider, request),
        cwd: request.taskRoot.view,
        session: { id: sessionId, dir: sessionDir, source: 'argv' },
      };
    },
  };
}
