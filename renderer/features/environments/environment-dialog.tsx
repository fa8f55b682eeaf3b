import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent, type RefObject } from 'react';
import { allowedHostPresets, parseAllowedHost } from '../../../shared/allowed-hosts';
import type { Environment } from '../../../shared/entities';
import { Choice } from '../../ui/choice';
import { ErrorAlert } from '../../ui/error-alert';
import { FormField } from '../../ui/form-field';
import { DialogFormFooter } from '../../ui/dialog-form-footer';
import { ModalDialog } from '../../ui/modal-dialog';
import { focusRouteTarget } from '../../ui/route-focus';
import { useSingleSubmit } from '../../ui/use-single-submit';
import {
  emptyEnvironmentForm,
  environmentFormFromEnvironment,
  environmentFormProblems,
  environmentInput,
  environmentUpdate,
  firstEnvironmentProblem,
  type EnvironmentFormField,
  type EnvironmentFormProblems,
  type EnvironmentFormValues,
} from './environment-form';
import { networkChoices, openNetworkWarning, remoteCredentialsNote, remoteNetworkNote, sandboxChoices } from './environment-labels';
import { useCreateEnvironment, useUpdateEnvironment } from './use-environments';
import { useHosts } from '../hosts/use-hosts';

/**
 * New environment and Edit <name>: one form. Opened from a "Network request blocked" notice's link
 * (`allowHost`), the host it names is already in the other allowed hosts, and that field has focus
 * with the caret after it: the operator reads it and saves (Ctrl+Enter does too).
 */
export function EnvironmentDialog({
  environment,
  allowHost,
  onClose,
  onSaved,
}: {
  /** The environment being edited; absent for a new one. */
  environment?: Environment;
  allowHost?: string;
  onClose: () => void;
  onSaved: (environment: Environment, changed: boolean) => void;
}) {
  const [values, setValues] = useState<EnvironmentFormValues>(() =>
    environment ? environmentFormFromEnvironment(environment, allowHost) : emptyEnvironmentForm(),
  );
  const [problems, setProblems] = useState<EnvironmentFormProblems>({});
  const hosts = useHosts();
  const create = useCreateEnvironment();
  const update = useUpdateEnvironment();
  const { pending: saving, submit: submitOnce } = useSingleSubmit();
  const failed = environment ? update : create;
  const formId = useId();
  const nameRef = useRef<HTMLInputElement>(null);
  const hostsRef = useRef<HTMLTextAreaElement>(null);
  const fieldRefs: Record<EnvironmentFormField, RefObject<HTMLElement | null>> = { name: nameRef, otherHosts: hostsRef };
  const sandboxed = values.kind === 'sandboxed';
  // The host the link asked to allow, when it is one and not allowed yet (the form added it).
  const [prefilled] = useState(() => {
    const parsed = allowHost ? parseAllowedHost(allowHost) : null;
    return parsed?.ok && environment && !environment.allowedHosts.includes(parsed.text) ? parsed.text : null;
  });
  const hostsApply = sandboxed && values.networkMode === 'provider-only';

  // The host the link brought: in view, focused, the caret after it.
  useEffect(() => {
    const field = hostsRef.current;
    if (!allowHost || !field) return;
    focusRouteTarget(field);
    field.setSelectionRange(field.value.length, field.value.length);
    // Once, when the dialog opens.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const change = (patch: Partial<EnvironmentFormValues>) => {
    setValues((current) => ({ ...current, ...patch }));
    const touched = Object.keys(patch);
    if (touched.some((field) => problems[field as EnvironmentFormField])) {
      setProblems((current) => {
        const next = { ...current };
        for (const field of touched) delete next[field as EnvironmentFormField];
        return next;
      });
    }
  };

  const submit = (event?: FormEvent<HTMLFormElement>) => {
    event?.preventDefault();
    submitOnce(() => {
      const found = environmentFormProblems(values);
      setProblems(found);
      const first = firstEnvironmentProblem(found);
      if (first) {
        fieldRefs[first].current?.focus();
        return;
      }
      if (!environment) return create.mutateAsync(environmentInput(values)).then((saved) => onSaved(saved, true));
      const changes = environmentUpdate(environment, values);
      if (!changes) {
        onSaved(environment, false);
        return;
      }
      return update.mutateAsync(changes).then((saved) => onSaved(saved, true));
    });
  };

  const submitOnCtrlEnter = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      submit();
    }
  };

  return (
    <ModalDialog
      title={environment ? `Edit ${environment.name}` : 'New environment'}
      description={
        <>
          <p className="muted">
            {environment
              ? 'Runs that start after you save get the change; runs admitted before keep what they started with.'
              : 'Where an agent’s runs execute and what their network may reach. Put an agent in it on the agent’s page.'}
          </p>
          {prefilled ? (
            <p>
              A run was refused <code>{prefilled}</code>: it is added to the other allowed hosts below. Save changes to allow it.
            </p>
          ) : null}
        </>
      }
      initialFocusRef={allowHost ? hostsRef : nameRef}
      onClose={onClose}
      className="environment-dialog"
      footer={<DialogFormFooter formId={formId} saving={saving} submitLabel={environment ? 'Save changes' : 'Create environment'} onCancel={onClose} />}
    >
      <form id={formId} className="dialog-form environment-form" onSubmit={submit} noValidate>
        <FormField label="Name" problem={problems.name}>
          {(control) => (
            <input
              ref={nameRef}
              {...control}
              className="input"
              type="text"
              value={values.name}
              onChange={(event) => change({ name: event.target.value })}
              autoComplete="off"
            />
          )}
        </FormField>

        <FormField
          label="SSH host"
          hint={
            values.hostId === null
              ? 'None: its runs execute on this machine. Add SSH hosts in Settings → Hosts.'
              : 'Its runs execute on that host, confined as here. A run is refused up front, saying why, while the host’s last Test host says it lacks what the run needs.'
          }
        >
          {(control) => (
            <select {...control} className="input" value={values.hostId ?? ''} onChange={(event) => change({ hostId: event.target.value === '' ? null : event.target.value })}>
              <option value="">None (this machine)</option>
              {(hosts.data ?? []).map((host) => (
                <option key={host.id} value={host.id}>
                  {host.name}
                </option>
              ))}
            </select>
          )}
        </FormField>
        {values.hostId !== null ? (
          <>
            <p className="field__hint" role="note" aria-label="Where the AI key goes">
              {remoteCredentialsNote}
            </p>
            <p className="field__hint" role="note" aria-label="Where the run’s traffic leaves from">
              {remoteNetworkNote}
            </p>
          </>
        ) : null}

        <fieldset className="form-section">
          <legend className="form-section__legend">Sandbox</legend>
          <div className="choice-list">
            {sandboxChoices.map((choice) => (
              <Choice
                key={choice.kind}
                type="radio"
                name={`${formId}-sandbox`}
                value={choice.kind}
                checked={values.kind === choice.kind}
                onChange={() => change(choice.kind === 'sandboxed' ? { kind: 'sandboxed', requiresConnection: true } : { kind: 'local' })}
                label={choice.label}
                hint={choice.hint}
              />
            ))}
          </div>
        </fieldset>

        <fieldset className="form-section">
          <legend className="form-section__legend">Network</legend>
          {sandboxed ? (
            <>
              <div className="choice-list">
                {networkChoices.map((choice) => (
                  <Choice
                    key={choice.mode}
                    type="radio"
                    name={`${formId}-network`}
                    value={choice.mode}
                    checked={values.networkMode === choice.mode}
                    onChange={() => change({ networkMode: choice.mode })}
                    label={choice.label}
                    hint={choice.hint}
                  />
                ))}
              </div>
              {values.networkMode === 'open' ? (
                <div className="callout callout--warning" role="note">
                  <p>
                    <strong>Warning: </strong>
                    {openNetworkWarning(values.hostId !== null)}
                  </p>
                </div>
              ) : null}
            </>
          ) : (
            <div className="callout callout--warning" role="note">
              <p>
                Without the OS sandbox the console can neither limit nor see a run’s network: its runs reach whatever you can.
                Choose the OS sandbox to use Provider only or None.
              </p>
            </div>
          )}
        </fieldset>

        {sandboxed ? (
          <fieldset className="form-section" aria-describedby={`${formId}-hosts-note`}>
            <legend className="form-section__legend">Allowed hosts</legend>
            <p id={`${formId}-hosts-note`} className="field__hint">
              {hostsApply
                ? 'Besides the model’s API, what the egress proxy lets these runs reach. Every request, allowed or not, is on the run’s Network panel.'
                : `Kept for when the network is Provider only: with ${values.networkMode === 'none' ? 'None nothing is reached' : 'Open every host is reached'} whatever is listed.`}
            </p>
            <div className="choice-list preset-list">
              {allowedHostPresets.map((preset) => (
                <Choice
                  key={preset.id}
                  type="checkbox"
                  value={preset.id}
                  checked={values.presets.includes(preset.id)}
                  onChange={(checked) => change({ presets: checked ? [...values.presets, preset.id] : values.presets.filter((id) => id !== preset.id) })}
                  label={preset.label}
                  hint={preset.hosts.join(', ')}
                />
              ))}
            </div>
            <FormField
              label="Other allowed hosts"
              problem={problems.otherHosts}
              hint="One per line: host or host:port. A host alone means HTTPS (port 443); *.example.com allows every name under example.com. No http://, paths or a bare *."
            >
              {(control) => (
                <textarea
                  ref={hostsRef}
                  {...control}
                  className="input input--mono textarea"
                  rows={4}
                  value={values.otherHosts}
                  onChange={(event) => change({ otherHosts: event.target.value })}
                  onKeyDown={submitOnCtrlEnter}
                  spellCheck={false}
                  autoCapitalize="off"
                  autoComplete="off"
                />
              )}
            </FormField>
          </fieldset>
        ) : null}

        <Choice
          type="checkbox"
          value="requires-connection"
          checked={sandboxed || values.requiresConnection}
          disabled={sandboxed}
          onChange={(checked) => change({ requiresConnection: checked })}
          label="Requires a managed AI connection"
          hint={
            sandboxed
              ? 'Always, in a sandbox: an unattended run gets a managed connection’s key and never sees your own login.'
              : 'Runs here are refused until their agent has an AI connection; an agent with your own login is refused too.'
          }
        />

        {failed.isError ? <ErrorAlert error={failed.error} prefix={environment ? 'Could not save the environment.' : 'Could not create the environment.'} /> : null}
      </form>
    </ModalDialog>
  );
}
