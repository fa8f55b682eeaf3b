import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { environmentRequiresConnection } from '../../../shared/connection-rule';
import type { CatalogProvider, Environment } from '../../../shared/entities';
import { FormField } from '../../ui/form-field';
import { focusRouteTarget } from '../../ui/route-focus';
import { environmentLabel, networkModeLabel } from './agent-labels';
import {
  agentFormProblems,
  commandPlaceholders,
  homeModeOptions,
  isCommandProvider,
  withProvider,
  type AgentFormField,
  type AgentFormProblems,
  type AgentFormValues,
} from './agent-form';


const fieldOrder: AgentFormField[] = [
  'name',
  'providerId',
  'model',
  'profileId',
  'capacity',
  'environmentId',
  'homeMode',
  'executablePath',
  'commandArgs',
];

/** The version a provider's CLI was tested with, for the provider list and the agent page. */
export function providerOptionLabel(provider: CatalogProvider): string {
  return provider.testedVersion ? `${provider.displayName} (tested with ${provider.testedVersion})` : provider.displayName;
}

/**
 * Every field of an agent, for New agent (in a dialog) and the agent page (inline). Submitting checks
 * the fields against the contract first and focuses the first problem; the caller sends the request.
 */
export function AgentForm({
  formId,
  initial,
  providers,
  environments,
  onSubmit,
  focusSetting,
  onUseIsolatedHome,
  afterHome,
  children,
}: {
  formId: string;
  initial: AgentFormValues;
  providers: readonly CatalogProvider[];
  environments: readonly Environment[];
  onSubmit: (values: AgentFormValues, provider: CatalogProvider | undefined) => void;
  /** Opened by an action link to one of these settings: bring it into view and put focus there (the home mode is highlighted too). */
  focusSetting?: 'home-mode' | 'executable-path' | undefined;
  /**
   * The agent page saves the switch to an isolated home at once (the fix a notice asks for); without
   * it (New agent) the button only changes the field, saved with the rest.
   */
  onUseIsolatedHome?: () => void;
  /** Rendered after the home fields, with the form's current values (New agent's AI connection and its preview). */
  afterHome?: (values: AgentFormValues, provider: CatalogProvider | undefined) => ReactNode;
  /** Rendered at the end of the form: its actions and errors. */
  children?: ReactNode;
}) {
  const [values, setValues] = useState(initial);
  const [problems, setProblems] = useState<AgentFormProblems>({});
  const fieldRefs = useRef(new Map<AgentFormField, HTMLElement>());
  const homeSectionRef = useRef<HTMLFieldSetElement>(null);
  const isolatedFixRef = useRef<HTMLButtonElement>(null);
  const register = (field: AgentFormField) => (element: HTMLElement | null) => {
    if (element) fieldRefs.current.set(field, element);
    else fieldRefs.current.delete(field);
  };

  useEffect(() => {
    if (focusSetting === 'home-mode') {
      // The fix itself when there is one to make; otherwise the setting.
      focusRouteTarget(isolatedFixRef.current ?? fieldRefs.current.get('homeMode'), { element: homeSectionRef.current, block: 'start' });
    } else if (focusSetting === 'executable-path') {
      focusRouteTarget(fieldRefs.current.get('executablePath'));
    }
  }, [focusSetting]);

  // The provider is known from its list; an agent whose provider left the catalog still shows its id.
  const provider = providers.find((candidate) => candidate.id === values.providerId);
  const command = isCommandProvider(provider);
  const profile = provider?.profiles.find((candidate) => candidate.id === values.profileId);
  const environment = environments.find((candidate) => candidate.id === values.environmentId);
  // A provider that lists models suggests them; the model is free text either way.
  const modelList = provider && provider.models.length > 0 ? provider.models : undefined;
  const modelSuggestionsId = useId();

  const update = (patch: Partial<AgentFormValues>) => {
    setValues((current) => ({ ...current, ...patch }));
    const touched = Object.keys(patch) as AgentFormField[];
    if (touched.some((field) => problems[field])) {
      setProblems((current) => {
        const next = { ...current };
        for (const field of touched) delete next[field];
        return next;
      });
    }
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const found = agentFormProblems(values, provider);
    setProblems(found);
    const first = fieldOrder.find((field) => found[field]);
    if (first) {
      fieldRefs.current.get(first)?.focus();
      return;
    }
    onSubmit(values, provider);
  };

  const sandboxNeedsIsolated = values.homeMode === 'preconfigured' && environment !== undefined && environmentRequiresConnection(environment);

  return (
    <form id={formId} className="agent-form" onSubmit={submit} noValidate>
      <FormField label="Name" problem={problems.name}>
        {(control) => (
          <input
            ref={register('name')}
            {...control}
            className="input"
            type="text"
            value={values.name}
            onChange={(event) => update({ name: event.target.value })}
            autoComplete="off"
          />
        )}
      </FormField>

      <div className="agent-form__row">
        <FormField label="Provider" problem={problems.providerId}>
          {(control) => (
            <select
              ref={register('providerId')}
              {...control}
              className="select"
              value={values.providerId}
              onChange={(event) => {
                const next = providers.find((candidate) => candidate.id === event.target.value);
                setValues((current) => withProvider({ ...current, providerId: event.target.value }, next));
                setProblems({});
              }}
            >
              {provider ? null : <option value={values.providerId}>{values.providerId || 'Choose a provider'}</option>}
              {providers.map((candidate) => (
                <option key={candidate.id} value={candidate.id}>
                  {providerOptionLabel(candidate)}
                </option>
              ))}
            </select>
          )}
        </FormField>

        <FormField
          label="Model"
          problem={problems.model}
          hint={
            modelList ? (
              'Any model id the provider or your gateway knows; the list suggests some.'
            ) : (
              <>
                Optional. Passed to the command as <code>{'{model}'}</code>.
              </>
            )
          }
        >
          {(control) => (
            <>
              {/* Models are open (new ones ship weekly, gateways name their own): the catalog's are suggestions. */}
              <input
                ref={register('model')}
                {...control}
                className="input input--mono"
                type="text"
                value={values.model}
                onChange={(event) => update({ model: event.target.value })}
                list={modelList ? modelSuggestionsId : undefined}
                placeholder={modelList ? undefined : 'default'}
                autoComplete="off"
                spellCheck={false}
              />
              {modelList ? (
                <datalist id={modelSuggestionsId}>
                  {modelList.map((model) => (
                    <option key={model.id} value={model.id} label={model.label} />
                  ))}
                </datalist>
              ) : null}
            </>
          )}
        </FormField>
      </div>

      {/* Full width: profile labels are sentences, and a narrow select would cut them off. */}
      <FormField label="Profile" problem={problems.profileId}>
        {(control) => (
          <select
            ref={register('profileId')}
            {...control}
            className="select"
            value={values.profileId}
            onChange={(event) => update({ profileId: event.target.value })}
          >
            {provider?.profiles.some((profile) => profile.id === values.profileId) ? null : (
              <option value={values.profileId}>{values.profileId || 'Choose a profile'}</option>
            )}
            {(provider?.profiles ?? []).map((profile) => (
              <option key={profile.id} value={profile.id}>
                {profile.label}
              </option>
            ))}
          </select>
        )}
      </FormField>

      <div className="agent-form__row agent-form__row--wide-first">
        <FormField label="Environment" problem={problems.environmentId}>
          {(control) => (
            <select
              ref={register('environmentId')}
              {...control}
              className="select"
              value={values.environmentId}
              onChange={(event) => {
                const next = environments.find((candidate) => candidate.id === event.target.value);
                // A sandboxed run must not see your own login: it gets an isolated home, the one that works there.
                update(
                  next && environmentRequiresConnection(next)
                    ? { environmentId: event.target.value, homeMode: 'isolated' }
                    : { environmentId: event.target.value },
                );
              }}
            >
              {environment ? null : <option value={values.environmentId}>{values.environmentId || 'Choose an environment'}</option>}
              {environments.map((candidate) => (
                <option key={candidate.id} value={candidate.id}>
                  {environmentLabel(candidate)} · {networkModeLabel(candidate.networkMode)}
                </option>
              ))}
            </select>
          )}
        </FormField>
        <FormField
          label="Runs at once"
          className="field--narrow"
          problem={problems.capacity}
          hint="Capacity: more runs of this agent wait in the queue."
        >
          {(control) => (
            <input
              ref={register('capacity')}
              {...control}
              className="input"
              type="number"
              inputMode="numeric"
              min={1}
              max={32}
              step={1}
              value={values.capacity}
              onChange={(event) => update({ capacity: event.target.value })}
            />
          )}
        </FormField>
      </div>

      <fieldset
        ref={homeSectionRef}
        id="agent-home-mode"
        className={`form-section${focusSetting === 'home-mode' ? ' form-section--target' : ''}`}
      >
        <legend className="form-section__legend">Home</legend>
        {/* The home mode is always valid: it has no problem to show. */}
        <FormField
          label="Home mode"
          hint={
            values.homeMode === 'isolated'
              ? 'Each run gets a fresh provider home holding only what its AI connection delivers.'
              : 'Runs use your own CLI login, through links to your auth files; sessions and logs stay in the task.'
          }
        >
          {(control) => (
            <select
              ref={register('homeMode')}
              {...control}
              className="select"
              value={values.homeMode}
              onChange={(event) => update({ homeMode: event.target.value === 'isolated' ? 'isolated' : 'preconfigured' })}
            >
              {homeModeOptions.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
          )}
        </FormField>
        {sandboxNeedsIsolated ? (
          <div className="callout callout--warning home-mode-fix">
            <p>
              A sandboxed environment needs an isolated home: your own login is not handed to unattended runs, so runs of
              this agent would be refused.
            </p>
            <button
              ref={isolatedFixRef}
              type="button"
              className="button button--primary button--small"
              onClick={() => {
                update({ homeMode: 'isolated' });
                onUseIsolatedHome?.();
              }}
            >
              Use an isolated home
            </button>
          </div>
        ) : null}
      </fieldset>

      {afterHome?.(values, provider)}

      <FormField
        label="Executable path"
        problem={problems.executablePath}
        hint={
          command
            ? 'The program this agent runs. Required unless the profile runs one of its own (a shell command does).'
            : `Optional: where the CLI is, if not on PATH${provider?.executable ? ` (the console looks for ${provider.executable})` : ''}.`
        }
      >
        {(control) => (
          <input
            ref={register('executablePath')}
            {...control}
            className="input input--mono"
            type="text"
            value={values.executablePath}
            onChange={(event) => update({ executablePath: event.target.value })}
            placeholder={command ? '/path/to/program' : (provider?.executable ?? '')}
            autoComplete="off"
            spellCheck={false}
          />
        )}
      </FormField>

      {command ? (
        <FormField
          label="Arguments"
          problem={problems.commandArgs}
          hint={
            <>
              One argument per line, passed as-is (no shell). Placeholders:{' '}
              {commandPlaceholders.map((placeholder, index) => (
                <span key={placeholder}>
                  {index > 0 ? ' ' : ''}
                  <code>{placeholder}</code>
                </span>
              ))}
              .{' '}
              {profile?.argsTemplate ? (
                <>
                  Empty uses the profile’s: <code>{profile.argsTemplate.join(' ')}</code>
                </>
              ) : (
                'Empty uses the profile’s arguments.'
              )}
            </>
          }
        >
          {(control) => (
            <textarea
              ref={register('commandArgs')}
              {...control}
              className="input input--mono textarea"
              rows={5}
              value={values.commandArgs}
              onChange={(event) => update({ commandArgs: event.target.value })}
              spellCheck={false}
            />
          )}
        </FormField>
      ) : null}

      {children}
    </form>
  );
}
