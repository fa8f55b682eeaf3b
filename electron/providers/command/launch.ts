import { OperatorError } from '../../../shared/errors';
import type { LaunchRequest, LaunchSpec, LaunchTarget } from '../launch';
import { launchSpec, resumeUnsupported } from '../launch';
import type { ProviderLaunch } from '../provider-definition';

/** Placeholders a `command` profile's args template may use (the catalog refuses any other). */
export const commandPlaceholders = [
  'prompt',
  'cwd',
  'model',
  'taskRoot',
  'tmp',
  'cache',
  'home',
  'title',
  'planPath',
  'reviewPath',
  // The task's own prompt, without the worker framing `{prompt}` adds (for a shell command).
  'taskPrompt',
] as const;

/**
 * Any executable. The profile gives the executable and an args template; each argument is one argv
 * entry after substitution (never a shell string), so a prompt with spaces or quotes stays one
 * argument. `{{` and `}}` are literal braces. There are no native sessions to resume.
 */
export const commandLaunch: ProviderLaunch = {
  resumable: false,
  build(target: LaunchTarget, request: LaunchRequest): LaunchSpec {
    if (request.session?.mode === 'resume') resumeUnsupported(target);
    const { profile, model } = request.agent;
    const values: Record<(typeof commandPlaceholders)[number], string> = {
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
    const args = [...template.map((part) => substitute(part, values, target)), ...profile.args];
    return launchSpec(target, null, request, args, null);
  },
};

export function substitute(part: string, values: Readonly<Record<string, string>>, target: LaunchTarget): string {
  return part.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (match, name: string | undefined) => {
    if (match === '{{') return '{';
    if (match === '}}') return '}';
    const value = name === undefined || !Object.hasOwn(values, name) ? undefined : values[name];
    if (value === undefined) {
      // The catalog schema rejects unknown placeholders, so this only guards hand-built profiles.
      throw new OperatorError({
        code: 'configuration_incomplete',
        reason: 'placeholder_unknown',
        message: `The ${target.displayName} args template uses an unknown placeholder ${match}.`,
      });
    }
    return value;
  });
}

/** `{name}` placeholders in a template; `{{` and `}}` are literal braces. */
export function placeholdersIn(template: readonly string[]): string[] {
  const names: string[] = [];
  for (const part of template) {
    for (const match of part.replaceAll('{{', '').replaceAll('}}', '').matchAll(/\{([^{}]*)\}/g)) {
      names.push(match[1] ?? '');
    }
  }
  return names;
}
