import type { ResolvedAgent, RunManager } from '../../runtime/index.ts';
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
