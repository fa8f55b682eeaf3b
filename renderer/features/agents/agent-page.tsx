import { useEffect, useRef } from 'react';
import { Link } from 'wouter';
import { NotFoundPage } from '../../app/not-found-page';
import { EmptyState } from '../../ui/empty-state';
import { formatFullTimestamp } from '../../ui/format';
import { Page } from '../../ui/page';
import { Loading, QueryError } from '../../ui/query-error';
import { environmentLabel, networkModeLabel, providerName } from './agent-labels';
import { useAgents, useConnections, useEnvironments } from './use-agents';

/** The settings an action link can open directly (shared/routes.ts builds these paths). */
const agentSettings = ['ai-connection', 'home-mode'] as const;
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

export function AgentPage({ agentId, setting }: { agentId: string; setting?: string }) {
  const agents = useAgents();
  const environments = useEnvironments();
  const connections = useConnections();
  const focusSection = isAgentSetting(setting) ? setting : undefined;
  const connectionRef = useRef<HTMLElement>(null);
  const homeRef = useRef<HTMLElement>(null);
  const agent = agents.data?.find((candidate) => candidate.id === agentId);

  // An action link names one setting: bring it into view, so the fix is where the operator lands.
  useEffect(() => {
    if (!agent || !focusSection) return;
    (focusSection === 'ai-connection' ? connectionRef : homeRef).current?.scrollIntoView({ block: 'start' });
  }, [agent, focusSection]);

  if (setting !== undefined && !focusSection) return <NotFoundPage />;

  if (agents.isPending) {
    return (
      <Page title="Agent">
        <Loading what="the agent" />
      </Page>
    );
  }
  if (agents.isError) {
    return (
      <Page title="Agent" actions={<BackToAgents />}>
        <QueryError what="the agent" error={agents.error} onRetry={() => void agents.refetch()} />
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
  const connection = agent.connectionId ? connections.data?.find((candidate) => candidate.id === agent.connectionId) : undefined;
  const needsConnection = Boolean(environment?.requiresConnection || agent.homeMode === 'isolated');
  const preconfiguredInSandbox = agent.homeMode === 'preconfigured' && environment?.requiresConnection;

  return (
    <Page title={agent.name} documentTitle={`Agent: ${agent.name}`} actions={<BackToAgents />} className="agent-page">
      <dl className="facts">
        <dt>CLI</dt>
        <dd>{providerName(agent.providerId)}</dd>
        <dt>Model</dt>
        <dd>
          <code>{agent.model}</code>
        </dd>
        <dt>Profile</dt>
        <dd>
          <code>{agent.profileId}</code>
        </dd>
        <dt>Environment</dt>
        <dd>
          {environment
            ? `${environmentLabel(environment)} · ${networkModeLabel(environment.networkMode)}`
            : '—'}
        </dd>
        <dt>Capacity</dt>
        <dd>{agent.capacity === 1 ? '1 run at a time' : `${agent.capacity} runs at a time`}</dd>
        <dt>Created</dt>
        <dd>{formatFullTimestamp(agent.createdAt)}</dd>
      </dl>

      <section
        ref={connectionRef}
        className={`settings-section${focusSection === 'ai-connection' ? ' settings-section--target' : ''}`}
        aria-labelledby="agent-ai-connection-heading"
      >
        <h2 id="agent-ai-connection-heading" className="section-title">
          AI connection
        </h2>
        {connection ? (
          <p>
            Runs use <strong>{connection.name}</strong>; its key is delivered to each run and removed when the run ends.
          </p>
        ) : agent.connectionId ? (
          <p className="form-error">The AI connection bound to this agent is no longer in the console.</p>
        ) : needsConnection ? (
          <p className="callout callout--warning">
            <strong>No AI connection bound.</strong> This agent {environment?.requiresConnection ? 'runs in a sandboxed environment' : 'uses an isolated home'}, so it needs a managed AI connection: its runs are refused before anything starts until one is bound.
          </p>
        ) : (
          <p>None. This agent runs locally with your own login, so it does not need one.</p>
        )}
      </section>

      <section
        ref={homeRef}
        className={`settings-section${focusSection === 'home-mode' ? ' settings-section--target' : ''}`}
        aria-labelledby="agent-home-mode-heading"
      >
        <h2 id="agent-home-mode-heading" className="section-title">
          Home
        </h2>
        <p>
          {agent.homeMode === 'isolated'
            ? 'Isolated: each run gets a fresh provider home holding only what its AI connection delivers.'
            : 'Your own login (preconfigured): runs use your CLI login through links to your own auth files.'}
        </p>
        {preconfiguredInSandbox ? (
          <p className="callout callout--warning">
            A sandboxed environment needs an isolated home: your own login is not handed to unattended runs, so runs of
            this agent are refused.
          </p>
        ) : null}
      </section>
    </Page>
  );
}
