import path from 'node:path';
import type { LaunchRequest, LaunchSpec, LaunchTarget } from '../launch';
import { launchSpec, newSessionId, requireSessionId } from '../launch';
import type { ProviderHomeLayout } from '../home-layout';
import type { ProviderLaunch } from '../provider-definition';

/**
 * Pi (checked against 0.73.1):
 *   new:    pi --mode json -p --session-dir <dir> --session <dir>/<id>.jsonl --model <m> [profile] <prompt>
 *   resume: the same argv with the recorded id: --session opens the existing file and continues it.
 * Pi has no flag to choose a session id, but `--session <path>` to a file that does not exist yet
 * starts a new session in exactly that file (SessionManager.setSessionFile keeps the explicit path).
 * So the console picks the file name before launch and the locator is known from the argv. (Pi's own
 * session id, in the file's header and the stream's first `session` line, is a separate UUIDv7.)
 * Pi's argument parser has no `--` and reads a leading `-` as a flag and `@` as a file to attach, so
 * such a prompt gets a leading space.
 */
export function piLaunch(home: ProviderHomeLayout): ProviderLaunch {
  return {
    resumable: true,
    build(target: LaunchTarget, request: LaunchRequest): LaunchSpec {
      const { profile, model } = request.agent;
      const defaultSessionDir = path.join(request.taskRoot.cache, home.folder, 'sessions');

      const session = request.session ?? { mode: 'new' };
      const sessionId = session.mode === 'resume' ? requireSessionId(target, session.sessionId) : newSessionId(request);
      const sessionDir = (session.mode === 'resume' ? session.sessionDir : null) ?? defaultSessionDir;
      const sessionFile = path.join(sessionDir, `${sessionId}.jsonl`);

      const args = [
        '--mode',
        'json',
        '-p',
        '--session-dir',
        sessionDir,
        '--session',
        sessionFile,
        '--model',
        model,
        ...profile.args,
        guardPiMessage(request.prompt),
      ];
      return launchSpec(target, home, request, args, { id: sessionId, dir: sessionDir, source: 'argv' });
    },
  };
}

export function guardPiMessage(prompt: string): string {
  return prompt.startsWith('-') || prompt.startsWith('@') ? ` ${prompt}` : prompt;
}
