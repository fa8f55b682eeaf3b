import { useId, useRef, useState, type FormEvent } from 'react';
import { connectionMethods, connectionOwnerships, connectionProviders, type AiConnection } from '../../../shared/entities';
import { Choice } from '../../ui/choice';
import { ErrorAlert } from '../../ui/error-alert';
import { FormField } from '../../ui/form-field';
import { DialogFormFooter } from '../../ui/dialog-form-footer';
import { ModalDialog } from '../../ui/modal-dialog';
import { useSingleSubmit } from '../../ui/use-single-submit';
import { ConnectionAgentsField } from './connection-agents-field';
import {
  connectionFormForAgent,
  connectionFormFromConnection,
  connectionFormProblems,
  createConnectionInput,
  emptyConnectionForm,
  exampleBaseUrl,
  firstProblem,
  isEmptyUpdate,
  methodAllowed,
  updateConnectionInput,
  withConnectionProvider,
  type ConnectionForAgent,
  type ConnectionFormField,
  type ConnectionFormProblems,
  type ConnectionFormValues,
} from './connection-form';
import { connectionMethodLabels, connectionOwnershipLabels, connectionProviderLabels, secretFieldLabel, secretNoun } from './connection-labels';
import { useCreateConnection, useUpdateConnection } from './use-connections';

const ownershipHints: Record<AiConnection['ownership'], string> = {
  personal: 'Your own account with the provider.',
  shared: 'A team or organisation key that others use too.',
};

/**
 * New connection and Edit <name>: one form. Made for an agent (`forAgent`), it offers only the
 * providers that agent's CLI can use and is shared with that agent; the caller binds it on save. The key goes into a password field that React does not
 * hold: it is read when the request is sent and wiped once the connection is saved.
 */
export function ConnectionDialog({
  connection,
  forAgent,
  onClose,
  onSaved,
}: {
  /** The connection being edited; absent for a new one. */
  connection?: AiConnection;
  forAgent?: ConnectionForAgent;
  onClose: () => void;
  onSaved: (connection: AiConnection) => void;
}) {
  const mode = connection ? 'edit' : 'create';
  const [values, setValues] = useState<ConnectionFormValues>(() =>
    connection ? connectionFormFromConnection(connection) : forAgent ? connectionFormForAgent(forAgent) : emptyConnectionForm(),
  );
  const providerChoices = forAgent && !connection ? connectionProviders.filter((provider) => forAgent.connectionProviders.includes(provider)) : connectionProviders;
  const forNewAgent = Boolean(forAgent && !connection && forAgent.id === null);
  const [problems, setProblems] = useState<ConnectionFormProblems>({});
  const [unchanged, setUnchanged] = useState(false);
  const secretInput = useRef<HTMLInputElement>(null);
  const readSecret = () => secretInput.current?.value.trim() ?? '';
  const wipeSecret = () => {
    if (secretInput.current) secretInput.current.value = '';
  };
  const createConnection = useCreateConnection(readSecret);
  const updateConnection = useUpdateConnection(readSecret);
  const { pending: saving, submit: submitOnce } = useSingleSubmit();
  const failed = mode === 'create' ? createConnection : updateConnection;
  const formId = useId();
  const fieldRefs = useRef(new Map<ConnectionFormField, HTMLElement>());
  const register = (field: ConnectionFormField) => (element: HTMLElement | null) => {
    if (element) fieldRefs.current.set(field, element);
    else fieldRefs.current.delete(field);
  };

  const update = (patch: Partial<ConnectionFormValues>) => {
    setUnchanged(false);
    setValues((current) => ({ ...current, ...patch }));
    const touched = Object.keys(patch) as ConnectionFormField[];
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
    // Opened from another form (New agent), portalled out of it in the page but not in React's tree:
    // its submit must not bubble on and submit that form too.
    event.stopPropagation();
    submitOnce(() => {
      const found = connectionFormProblems(values, readSecret(), mode, forNewAgent);
      setProblems(found);
      const first = firstProblem(found);
      if (first) {
        fieldRefs.current.get(first)?.focus();
        return;
      }
      const onSuccess = (saved: AiConnection) => {
        wipeSecret();
        onSaved(saved);
      };
      if (!connection) {
        // The key is read by the mutation itself (readSecret): it is not part of what the cache keeps.
        const { secret: _secret, ...input } = createConnectionInput(values, '');
        // The agent it is made for is always among the chosen ones (a new agent joins when it is created).
        if (forAgent?.id && input.agentScope === 'chosen' && !input.agentIds?.includes(forAgent.id)) {
          input.agentIds = [...(input.agentIds ?? []), forAgent.id];
        }
        return createConnection.mutateAsync(input).then(onSuccess);
      }
      const { secret: _secret, ...input } = updateConnectionInput(connection, values, '');
      if (isEmptyUpdate(input) && !readSecret()) {
        setUnchanged(true);
        return;
      }
      return updateConnection.mutateAsync(input).then(onSuccess);
    });
  };

  const secretName = secretFieldLabel(values.method);

  return (
    <ModalDialog
      title={connection ? `Edit ${connection.name}` : 'New AI connection'}
      description={
        <p className="muted">
          {connection
            ? 'Change what runs get from this connection. Agents bound to it are checked again when you save.'
            : forAgent
              ? `For ${forAgent.name || 'the new agent'}: once created, ${forAgent.name || 'the new agent'} uses it. The console delivers the key to its runs and removes it when they end.`
              : 'A key or token the console delivers to the runs of the agents that may use it, and removes when they end.'}
        </p>
      }
      onClose={onClose}
      className="connection-dialog"
      footer={<DialogFormFooter formId={formId} saving={saving} submitLabel={connection ? 'Save changes' : 'Create connection'} onCancel={onClose} />}
    >
      <form id={formId} className="dialog-form connection-form" onSubmit={submit} noValidate>
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
          <FormField label="Provider">
            {(control) => (
              <select
                ref={register('provider')}
                {...control}
                className="select"
                value={values.provider}
                onChange={(event) => {
                  const next = providerChoices.find((provider) => provider === event.target.value) ?? values.provider;
                  setValues((current) => withConnectionProvider(current, next));
                  setProblems((current) => {
                    const { provider: _provider, method: _method, baseUrl: _baseUrl, ...rest } = current;
                    return rest;
                  });
                  setUnchanged(false);
                }}
              >
                {providerChoices.map((provider) => (
                  <option key={provider} value={provider}>
                    {connectionProviderLabels[provider]}
                  </option>
                ))}
              </select>
            )}
          </FormField>
          <FormField
            label="Method"
            problem={problems.method}
            hint={
              values.method === 'subscription_token'
                ? 'Claude Code’s long-lived sign-in token, made with claude setup-token.'
                : 'A key from the provider’s console, or the key your gateway or server expects.'
            }
          >
            {(control) => (
              <select
                ref={register('method')}
                {...control}
                className="select"
                value={values.method}
                onChange={(event) => update({ method: event.target.value === 'subscription_token' ? 'subscription_token' : 'api_key' })}
              >
                {connectionMethods.map((method) => (
                  <option key={method} value={method} disabled={!methodAllowed(values.provider, method)}>
                    {connectionMethodLabels[method]}
                    {method === 'subscription_token' && values.provider !== 'anthropic' ? ' (Anthropic only)' : ''}
                  </option>
                ))}
              </select>
            )}
          </FormField>
        </div>

        <FormField
          label={secretName}
          problem={problems.secret}
          hint={
            connection
              ? `Leave empty to keep the stored ${secretNoun(values.method)}${connection.secretHint ? `, ${connection.secretHint}` : ''}. A new one replaces it.`
              : `Encrypted before it is stored. It is never shown again: the list shows only a hint, such as the provider and its last four characters.`
          }
        >
          {(control) => (
            <input
              ref={(element) => {
                secretInput.current = element;
                register('secret')(element);
              }}
              {...control}
              className="input input--mono"
              type="password"
              name="connection-secret"
              autoComplete="off"
              spellCheck={false}
              onChange={() => {
                setUnchanged(false);
                if (problems.secret) {
                  setProblems((current) => {
                    const { secret: _secret, ...rest } = current;
                    return rest;
                  });
                }
              }}
            />
          )}
        </FormField>

        <FormField
          label="Base URL"
          problem={problems.baseUrl}
          hint={
            values.provider === 'custom'
              ? `Required: the address of your OpenAI-compatible server, e.g. ${exampleBaseUrl}.`
              : 'Optional: a gateway or a local server. Empty uses the provider’s own API.'
          }
        >
          {(control) => (
            <input
              ref={register('baseUrl')}
              {...control}
              className="input input--mono"
              type="url"
              inputMode="url"
              value={values.baseUrl}
              onChange={(event) => update({ baseUrl: event.target.value })}
              placeholder={values.provider === 'custom' ? exampleBaseUrl : ''}
              autoComplete="off"
              spellCheck={false}
            />
          )}
        </FormField>

        <fieldset className="form-section">
          <legend className="form-section__legend">Ownership</legend>
          <div className="choice-list">
            {connectionOwnerships.map((ownership) => (
              <Choice
                key={ownership}
                type="radio"
                name={`${formId}-ownership`}
                value={ownership}
                checked={values.ownership === ownership}
                onChange={() => update({ ownership })}
                label={connectionOwnershipLabels[ownership]}
                hint={ownershipHints[ownership]}
              />
            ))}
          </div>
        </fieldset>

        <ConnectionAgentsField
          values={values}
          onChange={update}
          problem={problems.agentIds}
          scopeRef={register('agentIds')}
          radioName={`${formId}-scope`}
          connection={connection}
          forAgent={forAgent}
          forNewAgent={forNewAgent}
        />

        {connection ? (
          <Choice
            type="checkbox"
            value="revoked"
            checked={values.revoked}
            onChange={(checked) => update({ revoked: checked })}
            label="Revoked"
            hint="Retired: no run gets its key, and agents bound to it are refused until it is restored or they choose another."
          />
        ) : null}

        {unchanged ? <p className="form-success">Nothing to save: the connection is unchanged.</p> : null}
        {failed.isError ? (
          <ErrorAlert error={failed.error} prefix={connection ? 'Could not save the connection.' : 'Could not create the connection.'} />
        ) : null}
      </form>
    </ModalDialog>
  );
}
