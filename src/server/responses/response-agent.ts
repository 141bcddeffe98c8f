import type { ResolvedAgent, RunManager } from '../../runtime/index.ts';
import type { ResponseRecord, RunStore } from '../../store/index.ts';
import { agentMismatch } from '../dialect-conversation.ts';
import { HttpError } from '../http-error.ts';

/**
 * The agent a request's `model` names: OpenAI clients pick what answers with `model`, so here it is
 * an agent id. `undefined` when it names none (absent, `null` or empty: the caller's default). A
 * model that is no agent's is `model_not_found` (400), in OpenAI's error shape (`type`, `param`),
 * naming the agents the server does serve: a client configured for a model id learns what to send.
 */
export function agentOfModel(
  runs: Pick<RunManager, 'agents'>,
  model: string | null | undefined,
): ResolvedAgent | undefined {
  if (model === undefined || model === null || model.trim() === '') return undefined;
  const agent = runs.agents.find((candidate) => candidate.id === model.trim());
  if (agent !== undefined) return agent;
  const served = runs.agents.map((candidate) => candidate.id);
  throw new HttpError(
    400,
    'model_not_found',
    `The model ${JSON.stringify(model)} does not exist here: model names the agent to talk to, one of ${served.join(', ')} (or leave it out for ${served[0] ?? 'the default'})`,
    { type: 'invalid_request_error', param: 'model', models: served },
  );
}

/**
 * The agent of a response's conversation, for a request that continues it (`previous_response_id`,
 * or outputs and approvals that answer it): a chain keeps its agent, so a `named` agent that is not
 * that one is `agent_mismatch` (400).
 */
export async function agentOfResponse(
  store: RunStore,
  runs: Pick<RunManager, 'agent'>,
  record: ResponseRecord,
  named: ResolvedAgent | undefined,
): Promise<ResolvedAgent> {
  // Conversations made before agents had ids say `''`: the default agent's.
  const own = runs.agent((await store.getConversation(record.conversationId))?.agentId);
  if (named !== undefined && named.id !== own.id)
    throw agentMismatch(own.id, named.id, { type: 'invalid_request_error', param: 'model' });
  return own;
}
