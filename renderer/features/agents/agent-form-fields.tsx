import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import type { CatalogProvider, Environment } from '../../../shared/entities';
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
  focusHomeMode = false,
  children,
}: {
  formId: string;
  initial: AgentFormValues;
  providers: readonly CatalogProvider[];
  environments: readonly Environment[];
  onSubmit: (values: AgentFormValues, provider: CatalogProvider | undefined) => void;
  /** Opened by an action link to the home-mode setting: highlight it and put focus there. */
  focusHomeMode?: boolean;
  /** Rendered at the end of the form: its actions and errors. */
  children?: ReactNode;
}) {
  const [values, setValues] = useState(initial);
  const [problems, setProblems] = useState<AgentFormProblems>({});
  const ids = {
    name: useId(),
    providerId: useId(),
    model: useId(),
    modelHint: useId(),
    profileId: useId(),
    capacity: useId(),
    capacityHint: useId(),
    environmentId: useId(),
    homeMode: useId(),
    homeHint: useId(),
    executablePath: useId(),
    executableHint: useId(),
    commandArgs: useId(),
    argsHint: useId(),
  };
  const fieldRefs = useRef(new Map<AgentFormField, HTMLElement>());
  const homeSectionRef = useRef<HTMLFieldSetElement>(null);
  const register = (field: AgentFormField) => (element: HTMLElement | null) => {
    if (element) fieldRefs.current.set(field, element);
    else fieldRefs.current.delete(field);
  };

  useEffect(() => {
    if (!focusHomeMode) return;
    // After the layout has focused the new page's heading (it does so in the same commit), not before.
    const timer = setTimeout(() => {
      homeSectionRef.current?.scrollIntoView({ block: 'start' });
      fieldRefs.current.get('homeMode')?.focus({ preventScroll: true });
    }, 0);
    return () => clearTimeout(timer);
  }, [focusHomeMode]);

  // The provider is known from its list; an agent whose provider left the catalog still shows its id.
  const provider = providers.find((candidate) => candidate.id === values.providerId);
  const command = isCommandProvider(provider);
  const profile = provider?.profiles.find((candidate) => candidate.id === values.profileId);
  const environment = environments.find((candidate) => candidate.id === values.environmentId);

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

  const problemId = (field: AgentFormField) => `${ids[field]}-problem`;
  const describedBy = (field: AgentFormField, ...hints: string[]) =>
    [problems[field] ? problemId(field) : undefined, ...hints].filter(Boolean).join(' ') || undefined;
  const invalid = (field: AgentFormField) => (problems[field] ? true : undefined);
  const problemText = (field: AgentFormField) =>
    problems[field] ? (
      <p id={problemId(field)} className="field__problem">
        {problems[field]}
      </p>
    ) : null;

  const sandboxNeedsIsolated = values.homeMode === 'preconfigured' && environment?.requiresConnection;

  return (
    <form id={formId} className="agent-form" onSubmit={submit} noValidate>
      <div className="field">
        <label htmlFor={ids.name}>Name</label>
        <input
          ref={register('name')}
          id={ids.name}
          className="input"
          type="text"
          value={values.name}
          onChange={(event) => update({ name: event.target.value })}
          autoComplete="off"
          aria-invalid={invalid('name')}
          aria-describedby={describedBy('name')}
        />
        {problemText('name')}
      </div>

      <div className="agent-form__row">
        <div className="field">
          <label htmlFor={ids.providerId}>Provider</label>
          <select
            ref={register('providerId')}
            id={ids.providerId}
            className="select"
            value={values.providerId}
            onChange={(event) => {
              const next = providers.find((candidate) => candidate.id === event.target.value);
              setValues((current) => withProvider({ ...current, providerId: event.target.value }, next));
              setProblems({});
            }}
            aria-invalid={invalid('providerId')}
            aria-describedby={describedBy('providerId')}
          >
            {provider ? null : <option value={values.providerId}>{values.providerId || 'Choose a provider'}</option>}
            {providers.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {providerOptionLabel(candidate)}
              </option>
            ))}
          </select>
          {problemText('providerId')}
        </div>

        <div className="field">
          <label htmlFor={ids.model}>Model</label>
          {provider && provider.models.length > 0 ? (
            <select
              ref={register('model')}
              id={ids.model}
              className="select"
              value={values.model}
              onChange={(event) => update({ model: event.target.value })}
              aria-invalid={invalid('model')}
              aria-describedby={describedBy('model')}
            >
              {provider.models.some((model) => model.id === values.model) ? null : (
                <option value={values.model}>{values.model || 'Choose a model'}</option>
              )}
              {provider.models.map((model) => (
                <option key={model.id} value={model.id}>
                  {model.label}
                </option>
              ))}
            </select>
          ) : (
            <>
              <input
                ref={register('model')}
                id={ids.model}
                className="input input--mono"
                type="text"
                value={values.model}
                onChange={(event) => update({ model: event.target.value })}
                placeholder="default"
                autoComplete="off"
                spellCheck={false}
                aria-invalid={invalid('model')}
                aria-describedby={describedBy('model', ids.modelHint)}
              />
              <p id={ids.modelHint} className="field__hint">
                Optional. Passed to the command as <code>{'{model}'}</code>.
              </p>
            </>
          )}
          {problemText('model')}
        </div>
      </div>

      <div className="agent-form__row">
        <div className="field">
          <label htmlFor={ids.profileId}>Profile</label>
          <select
            ref={register('profileId')}
            id={ids.profileId}
            className="select"
            value={values.profileId}
            onChange={(event) => update({ profileId: event.target.value })}
            aria-invalid={invalid('profileId')}
            aria-describedby={describedBy('profileId')}
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
          {problemText('profileId')}
        </div>

        <div className="field field--narrow">
          <label htmlFor={ids.capacity}>Runs at once</label>
          <input
            ref={register('capacity')}
            id={ids.capacity}
            className="input"
            type="number"
            inputMode="numeric"
            min={1}
            max={32}
            step={1}
            value={values.capacity}
            onChange={(event) => update({ capacity: event.target.value })}
            aria-invalid={invalid('capacity')}
            aria-describedby={describedBy('capacity', ids.capacityHint)}
          />
          <p id={ids.capacityHint} className="field__hint">
            Capacity: more runs of this agent wait in the queue.
          </p>
          {problemText('capacity')}
        </div>
      </div>

      <div className="field">
        <label htmlFor={ids.environmentId}>Environment</label>
        <select
          ref={register('environmentId')}
          id={ids.environmentId}
          className="select"
          value={values.environmentId}
          onChange={(event) => update({ environmentId: event.target.value })}
          aria-invalid={invalid('environmentId')}
          aria-describedby={describedBy('environmentId')}
        >
          {environment ? null : <option value={values.environmentId}>{values.environmentId || 'Choose an environment'}</option>}
          {environments.map((candidate) => (
            <option key={candidate.id} value={candidate.id}>
              {environmentLabel(candidate)} · {networkModeLabel(candidate.networkMode)}
            </option>
          ))}
        </select>
        {problemText('environmentId')}
      </div>

      <fieldset
        ref={homeSectionRef}
        id="agent-home-mode"
        className={`form-section${focusHomeMode ? ' form-section--target' : ''}`}
      >
        <legend className="form-section__legend">Home</legend>
        <div className="field">
          <label htmlFor={ids.homeMode}>Home mode</label>
          <select
            ref={register('homeMode')}
            id={ids.homeMode}
            className="select"
            value={values.homeMode}
            onChange={(event) => update({ homeMode: event.target.value === 'isolated' ? 'isolated' : 'preconfigured' })}
            aria-describedby={describedBy('homeMode', ids.homeHint)}
          >
            {homeModeOptions.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
          <p id={ids.homeHint} className="field__hint">
            {values.homeMode === 'isolated'
              ? 'Each run gets a fresh provider home holding only what its AI connection delivers.'
              : 'Runs use your own CLI login, through links to your auth files; sessions and logs stay in the task.'}
          </p>
        </div>
        {sandboxNeedsIsolated ? (
          <p className="callout callout--warning">
            A sandboxed environment needs an isolated home: your own login is not handed to unattended runs, so runs of
            this agent would be refused.
          </p>
        ) : null}
      </fieldset>

      <div className="field">
        <label htmlFor={ids.executablePath}>Executable path</label>
        <input
          ref={register('executablePath')}
          id={ids.executablePath}
          className="input input--mono"
          type="text"
          value={values.executablePath}
          onChange={(event) => update({ executablePath: event.target.value })}
          placeholder={command ? '/path/to/program' : (provider?.executable ?? '')}
          autoComplete="off"
          spellCheck={false}
          aria-invalid={invalid('executablePath')}
          aria-describedby={describedBy('executablePath', ids.executableHint)}
        />
        <p id={ids.executableHint} className="field__hint">
          {command
            ? 'The program this agent runs. Required unless the profile runs one of its own (a shell command does).'
            : `Optional: where the CLI is, if not on PATH${provider?.executable ? ` (the console looks for ${provider.executable})` : ''}.`}
        </p>
        {problemText('executablePath')}
      </div>

      {command ? (
        <div className="field">
          <label htmlFor={ids.commandArgs}>Arguments</label>
          <textarea
            ref={register('commandArgs')}
            id={ids.commandArgs}
            className="input input--mono textarea"
            rows={5}
            value={values.commandArgs}
            onChange={(event) => update({ commandArgs: event.target.value })}
            spellCheck={false}
            aria-invalid={invalid('commandArgs')}
            aria-describedby={describedBy('commandArgs', ids.argsHint)}
          />
          <p id={ids.argsHint} className="field__hint">
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
          </p>
          {problemText('commandArgs')}
        </div>
      ) : null}

      {children}
    </form>
  );
}
