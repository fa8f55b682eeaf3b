import { useId, useState } from 'react';
import type { Agent } from '../../../shared/entities';
import { ErrorAlert } from '../../ui/error-alert';
import { ModalDialog } from '../../ui/modal-dialog';
import { Loading, QueryError } from '../../ui/query-error';
import { useSingleSubmit } from '../../ui/use-single-submit';
import { createAgentInput, defaultAgentForm } from './agent-form';
import { AgentForm } from './agent-form-fields';
import { useCreateAgent, useEnvironments } from './use-agents';
import { useCatalog } from './use-catalog';
import { NewAgentConnectionField } from './new-agent-connection';

export function NewAgentDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (agent: Agent) => void }) {
  const catalog = useCatalog();
  const environments = useEnvironments();
  const createAgent = useCreateAgent();
  const submission = useSingleSubmit();
  const formId = useId();
  const [connectionId, setConnectionId] = useState<string | null>(null);

  let body;
  if (catalog.isPending || environments.isPending) body = <Loading what="the provider catalog" />;
  else if (catalog.isError) body = <QueryError what="the provider catalog" error={catalog.error} onRetry={() => void catalog.refetch()} />;
  else if (environments.isError) {
    body = <QueryError what="environments" error={environments.error} onRetry={() => void environments.refetch()} />;
  } else {
    body = (
      <AgentForm
        formId={formId}
        initial={defaultAgentForm(catalog.data.providers, environments.data)}
        providers={catalog.data.providers}
        environments={environments.data}
        afterHome={(values, provider) => (
          <NewAgentConnectionField
            values={values}
            provider={provider}
            environments={environments.data}
            connectionId={connectionId}
            onConnectionChange={setConnectionId}
          />
        )}
        onSubmit={(values, provider) =>
          submission.submit(() => createAgent.mutateAsync({ ...createAgentInput(values, provider), connectionId }).then(onCreated))
        }
      >
        {createAgent.isError ? <ErrorAlert error={createAgent.error} prefix="Could not create the agent." /> : null}
      </AgentForm>
    );
  }

  const ready = catalog.isSuccess && environments.isSuccess;
  return (
    <ModalDialog
      title="New agent"
      description={<p className="muted">A named CLI, model and profile, with where and how many of its runs go at once.</p>}
      onClose={onClose}
      className="agent-dialog"
      footer={
        <>
          {submission.pending ? <span className="form-card__progress">Creating…</span> : null}
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          {ready ? (
            <button type="submit" form={formId} className="button button--primary" aria-disabled={submission.pending || undefined}>
              Create agent
            </button>
          ) : null}
        </>
      }
    >
      {body}
    </ModalDialog>
  );
}
