import { useId, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { budgetsOfPath } from '../budgets/budget-links';
import type { Agent } from '../../../shared/entities';
import { isOperatorError } from '../../../shared/errors';
import { NotFoundPage } from '../../app/not-found-page';
import { ConfirmDialog } from '../../ui/confirm-dialog';
import { EmptyState } from '../../ui/empty-state';
import { ErrorAlert } from '../../ui/error-alert';
import { formatFullTimestamp } from '../../ui/format';
import { Page } from '../../ui/page';
import { Loading, QueryError } from '../../ui/query-error';
import { useSingleSubmit } from '../../ui/use-single-submit';
import { agentFormFromAgent, updateAgentInput } from './agent-form';
import { AgentForm } from './agent-form-fields';
import { AgentConnectionSection, focusAgentConnectionControl } from './agent-connection-section';
import { VariablesEditor } from '../projects/variables-editor';
import { AgentNotices } from './agent-notices';
import { useAgent, useAgentCliVersion, useDeleteAgent, useEnvironments, useUpdateAgent } from './use-agents';
import { findProvider, providerDisplayName, useCatalog } from './use-catalog';

/** The settings an action link can open directly (shared/routes.ts builds these paths). */
const agentSettings = ['ai-connection', 'home-mode', 'executable-path'] as const;
type AgentSetting = (typeof agentSettings)[number];

function isAgentSetting(value: string | undefined): value is AgentSetting {
  return agentSettings.some((setting) => setting === value);
}

function BackToAgents() {
  return (
    <Link href="/agents" className="button">
      Back to the agent list
    </Link>
  );
}

function shortDigest(digest: string | null | undefined): string {
  return digest ? digest.slice(0, 12) : '—';
}

function DeleteAgentDialog({ agent, onClose }: { agent: Agent; onClose: () => void }) {
  const deleteAgent = useDeleteAgent();
  const [, navigate] = useLocation();
  return (
    <ConfirmDialog
      title="Delete agent"
      description={<p>Delete {agent.name}? Runs it made stay in the run history; tasks are not touched.</p>}
      confirmLabel="Delete"
      error={deleteAgent.error}
      errorPrefix="Could not delete the agent."
      onConfirm={() => deleteAgent.mutateAsync(agent.id).then(() => navigate('/agents'))}
      onClose={onClose}
    />
  );
}

function AgentSettingsForm({ agent, focusSetting }: { agent: Agent; focusSetting: 'home-mode' | 'executable-path' | undefined }) {
  const catalog = useCatalog();
  const environments = useEnvironments();
  const updateAgent = useUpdateAgent();
  // Save and Use an isolated home send the same request: one of them at a time.
  const submission = useSingleSubmit();
  const [saved, setSaved] = useState<string | null>(null);
  const formId = useId();

  if (catalog.isPending || environments.isPending) return <Loading what="the agent’s settings" />;
  if (catalog.isError) return <QueryError what="the provider catalog" error={catalog.error} onRetry={() => void catalog.refetch()} />;
  if (environments.isError) {
    return <QueryError what="environments" error={environments.error} onRetry={() => void environments.refetch()} />;
  }

  return (
    <AgentForm
      formId={formId}
      initial={agentFormFromAgent(agent)}
      providers={catalog.data.providers}
      environments={environments.data}
      focusSetting={focusSetting}
      onUseIsolatedHome={() =>
        submission.submit(() => {
          setSaved(null);
          return updateAgent.mutateAsync({ agentId: agent.id, homeMode: 'isolated' }).then((next) => {
            const needsConnection = next.connectionId === null;
            setSaved(needsConnection ? `Saved: ${next.name} has an isolated home. Next, give it an AI connection.` : `Saved: ${next.name} has an isolated home.`);
            // The next half of the fix is the AI connection: take the operator there, on this page.
            if (needsConnection) focusAgentConnectionControl();
          });
        })
      }
      onSubmit={(values, provider) =>
        submission.submit(() => {
          setSaved(null);
          const input = updateAgentInput(agent, values, provider);
          if (Object.keys(input).length === 1) {
            setSaved('Nothing to save: the settings are unchanged.');
            return;
          }
          return updateAgent.mutateAsync(input).then((next) => setSaved(`Saved ${next.name}.`));
        })
      }
    >
      <div className="form-card__actions">
        <button type="submit" className="button button--primary" aria-disabled={submission.pending || undefined}>
          Save agent
        </button>
        {submission.pending ? <span className="form-card__progress">Saving…</span> : null}
        <p className="form-success" aria-live="polite">
          {saved}
        </p>
      </div>
      {updateAgent.isError ? <ErrorAlert error={updateAgent.error} prefix="Could not save the agent." /> : null}
    </AgentForm>
  );
}

export function AgentPage({ agentId, setting }: { agentId: string; setting?: string }) {
  const agentQuery = useAgent(agentId);
  const environments = useEnvironments();
  const catalog = useCatalog();
  const [deleting, setDeleting] = useState(false);
  const focusSection = isAgentSetting(setting) ? setting : undefined;
  const agent = agentQuery.data;

  if (setting !== undefined && !focusSection) return <NotFoundPage />;

  if (agentQuery.isPending) {
    return (
      <Page title="Agent">
        <Loading what="the agent" />
      </Page>
    );
  }
  if (agentQuery.isError && !(isOperatorError(agentQuery.error) && agentQuery.error.code === 'not_found')) {
    return (
      <Page title="Agent" actions={<BackToAgents />}>
        <QueryError what="the agent" error={agentQuery.error} onRetry={() => void agentQuery.refetch()} />
      </Page>
    );
  }
  if (!agent) {
    return (
      <Page title="Agent not found">
        <EmptyState title="This agent is not in the console" action={<BackToAgents />}>
          <p>
            No agent has the id <code>{agentId}</code>. It may have been deleted; the agent list shows every agent the
            console knows.
          </p>
        </EmptyState>
      </Page>
    );
  }

  const environment = environments.data?.find((candidate) => candidate.id === agent.environmentId);
  const provider = findProvider(catalog.data, agent.providerId);

  return (
    <Page
      title={agent.name}
      documentTitle={`Agent: ${agent.name}`}
      actions={
        <>
          <BackToAgents />
          {/* What this agent may use per day or month; Settings → Budgets narrowed to it. */}
          <Link href={budgetsOfPath('agent', agent.id)} className="button">
            Budgets
          </Link>
          <button type="button" className="button button--danger-quiet" onClick={() => setDeleting(true)}>
            Delete agent
          </button>
        </>
      }
      className="agent-page"
    >
      <dl className="facts">
        <dt>Provider</dt>
        <dd>{providerDisplayName(catalog.data, agent.providerId)}</dd>
        <dt>Tested version</dt>
        <dd>
          {provider?.testedVersion ? (
            <>
              Tested with {provider.displayName} <code>{provider.testedVersion}</code>
            </>
          ) : provider ? (
            <span className="muted">No tested version: any program can run here</span>
          ) : (
            <span className="muted">—</span>
          )}
        </dd>
        <dt>Installed version</dt>
        <dd>
          <InstalledCliVersion agentId={agent.id} />
        </dd>
        <dt>Profile revision</dt>
        <dd>
          <code title={agent.profileRevision}>{shortDigest(agent.profileRevision)}</code>
        </dd>
        <dt>Created</dt>
        <dd>{formatFullTimestamp(agent.createdAt)}</dd>
      </dl>

      {/* An action link names one setting: the picker is brought into view and focused, so the fix is where the operator lands. */}
      <AgentConnectionSection
        key={agent.id}
        agent={agent}
        environment={environment}
        focusPicker={focusSection === 'ai-connection'}
      />

      {/* Beside the fix: the notice it answers turns to Resolved here, with Run again. */}
      <AgentNotices agentId={agent.id} />

      <section className="settings-section" aria-labelledby="agent-settings-heading">
        <h2 id="agent-settings-heading" className="section-title">
          Settings
        </h2>
        <div className="form-card agent-settings">
          <AgentSettingsForm key={agent.id} agent={agent} focusSetting={focusSection === 'ai-connection' ? undefined : focusSection} />
        </div>
      </section>

      <section className="settings-section" aria-labelledby="agent-variables-heading">
        <h2 id="agent-variables-heading" className="section-title">
          Variables
        </h2>
        <VariablesEditor layer="agent" ownerId={agent.id} ownerName={agent.name} />
      </section>

      {deleting ? <DeleteAgentDialog agent={agent} onClose={() => setDeleting(false)} /> : null}
    </Page>
  );
}

/** What `<cli> --version` says, beside the catalog's tested version; the message says when they differ. */
function InstalledCliVersion({ agentId }: { agentId: string }) {
  const version = useAgentCliVersion(agentId);
  if (version.isPending) return <span className="muted">Checking…</span>;
  if (version.isError) return <span className="muted">Could not be read</span>;
  const { version: installed, message } = version.data;
  return installed ? (
    <>
      <code>{installed}</code> <span className="muted">{message}</span>
    </>
  ) : (
    <span className="muted">{message}</span>
  );
}
