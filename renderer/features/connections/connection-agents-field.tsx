import { useId } from 'react';
import type { AiConnection } from '../../../shared/entities';
import { useAgents } from '../agents/use-agents';
import { findProvider, providerDisplayName, useCatalog } from '../agents/use-catalog';
import { Choice } from '../../ui/choice';
import type { ConnectionForAgent, ConnectionFormValues } from './connection-form';
import { connectionProviderLabels } from './connection-labels';

/**
 * The Agents section of the connection form: all agents, or the chosen ones ticked in a list that
 * says of each agent whether its CLI can use this provider. A connection made for an agent has that
 * agent ticked for good (a new agent, not saved yet, is listed as such).
 */
export function ConnectionAgentsField({
  values,
  onChange,
  problem,
  scopeRef,
  radioName,
  connection,
  forAgent,
  forNewAgent,
}: {
  values: ConnectionFormValues;
  onChange: (patch: Partial<Pick<ConnectionFormValues, 'agentScope' | 'agentIds'>>) => void;
  problem: string | undefined;
  /** Where focus goes when the chosen agents are the form's first problem. */
  scopeRef: (element: HTMLElement | null) => void;
  radioName: string;
  /** The connection being edited; absent for a new one. */
  connection: AiConnection | undefined;
  forAgent: ConnectionForAgent | undefined;
  forNewAgent: boolean;
}) {
  const agents = useAgents();
  const catalog = useCatalog();
  const agentsId = useId();
  // The agents are chosen in a fieldset of their own, not one control: its problem is wired by hand.
  const agentsProblemId = `${agentsId}-problem`;
  const agentList = agents.data ?? [];

  return (
    <fieldset className="form-section" aria-describedby={problem ? agentsProblemId : undefined}>
      <legend className="form-section__legend">Agents</legend>
      <div className="choice-list">
        <Choice
          type="radio"
          name={radioName}
          value="all"
          checked={values.agentScope === 'all'}
          onChange={() => onChange({ agentScope: 'all' })}
          label="All agents"
          hint="Every agent whose CLI speaks this provider, now and later."
        />
        <Choice
          inputRef={scopeRef}
          type="radio"
          name={radioName}
          value="chosen"
          checked={values.agentScope === 'chosen'}
          onChange={() => onChange({ agentScope: 'chosen' })}
          label="Chosen agents"
          hint="Only the agents ticked below."
        />
      </div>
      {values.agentScope === 'chosen' ? (
        agentList.length === 0 && !forNewAgent ? (
          <p className="field__hint">There are no agents yet. Choose All agents, or create an agent first.</p>
        ) : (
          <ul id={agentsId} className="choice-list choice-list--nested" aria-label="Agents that may use it">
            {forNewAgent ? (
              <li>
                <Choice
                  type="checkbox"
                  value="new-agent"
                  checked
                  disabled
                  onChange={() => undefined}
                  label={forAgent?.name ? `${forAgent.name} (the new agent)` : 'The new agent'}
                  hint="Made for it: it may use this connection once it is created."
                />
              </li>
            ) : null}
            {agentList.map((agent) => {
              const own = agent.id === forAgent?.id && !connection;
              const provider = findProvider(catalog.data, agent.providerId);
              const speaks = !provider || provider.connectionProviders.includes(values.provider);
              return (
                <li key={agent.id}>
                  <Choice
                    type="checkbox"
                    value={agent.id}
                    checked={own || values.agentIds.includes(agent.id)}
                    disabled={own}
                    onChange={(checked) =>
                      onChange({ agentIds: checked ? [...values.agentIds, agent.id] : values.agentIds.filter((id) => id !== agent.id) })
                    }
                    label={agent.name}
                    hint={
                      own
                        ? 'Made for it: it uses this connection once it is created.'
                        : `${providerDisplayName(catalog.data, agent.providerId)}${
                            speaks ? '' : ` — its CLI cannot use a ${connectionProviderLabels[values.provider]} connection`
                          }`
                    }
                  />
                </li>
              );
            })}
          </ul>
        )
      ) : null}
      {problem ? (
        <p id={agentsProblemId} className="field__problem">
          {problem}
        </p>
      ) : null}
    </fieldset>
  );
}
