import { OperatorError } from '../../../shared/errors';
import type { ProviderEntry } from '../catalog';
import type { LaunchRequest, LaunchSpec, ProviderAdapter } from './adapter';
import { executableFor, providerEnv, resumeUnsupported } from './adapter';

/**
 * Any executable. The profile gives the executable and an args template; each argument is one argv
 * entry after substitution (never a shell string), so a prompt with spaces or quotes stays one
 * argument. `{{` and `}}` are literal braces. There are no native sessions to resume.
 */
export function createCommandAdapter(provider: ProviderEntry): ProviderAdapter {
  return {
    provider,
    eventFormat: provider.eventFormat,
    supportsResume: false,
    buildLaunch(request: LaunchRequest): LaunchSpec {
      if (request.session?.mode === 'resume') resumeUnsupported(provider);
      const { profile, model } = request.agent;
      const values: Record<string, string> = {
        prompt: request.prompt,
        cwd: request.taskRoot.view,
        model,
        taskRoot: request.taskRoot.root,
        tmp: request.taskRoot.tmp,
        cache: request.taskRoot.cache,
        home: request.taskRoot.home,
        title: request.task.title,
        planPath: request.task.planPath ?? '',
        reviewPath: request.task.reviewPath ?? '',
        taskPrompt: request.task.prompt,
      };
      const template = profile.argsTemplate ?? ['{prompt}'];
      const args = [...template.map((part) => substitute(part, values, provider)), ...profile.args];
      return {
        executable: executableFor(provider, profile),
        args,
        env: providerEnv(provider, request),
        cwd: request.taskRoot.view,
        session: null,
      };
    },
  };
}

export function substitute(part: string, values: Record<string, string>, provider: ProviderEntry): string {
  return part.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (match, name: string | undefined) => {
    if (match === '{{') return '{';
    if (match === '}}') return '}';
    const value = name === undefined ? undefined : values[name];
    if (value === undefined) {
      // The catalog schema rejects unknown placeholders, so this only guards hand-built profiles.
      throw new OperatorError({
        code: 'configuration_incomplete',
        reason: 'placeholder_unknown',
        message: `The ${provider.displayName} args template uses an unknown placeholder ${match}.`,
      });
    }
    return value;
  });
}
