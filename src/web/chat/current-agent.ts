import type { AgentSummary } from '../../client/index.ts';
import type { ChatSnapshot } from '../../react/index.ts';

/**
 * The agent whose title, greeting and examples the page shows: the open conversation's, or for a new
 * conversation the chosen one (else the server's default, the first). While an existing conversation
 * loads and nothing yet says whose it is, `undefined`: the page shows its generic title rather than
 * another agent's. A conversation from a server that names no agents belongs to the default one.
 */
export function currentAgent(snapshot: ChatSnapshot): AgentSummary | undefined {
  const { agents, conversation } = snapshot;
  if (conversation.id === null) return agentById(agents, snapshot.selectedAgentId) ?? agents[0];
  // The list already knows each conversation's agent: no generic flash while it opens.
  const agentId =
    conversation.agentId ?? snapshot.conversations.find((item) => item.id === conversation.id)?.agentId;
  if (agentId !== undefined) return agentById(agents, agentId);
  return conversation.status === 'loading' ? undefined : agents[0];
}

/** The agent the picker shows: the chosen one, else the default. */
export function selectedAgent(snapshot: ChatSnapshot): AgentSummary | undefined {
  return agentById(snapshot.agents, snapshot.selectedAgentId) ?? snapshot.agents[0];
}

export function agentById(agents: readonly AgentSummary[], id: string | null): AgentSummary | undefined {
  return id === null ? undefined : agents.find((agent) => agent.id === id);
}
