import type { RunRecord } from '../../store/index.ts';
import type { ResolvedAgent } from '../agent/resolved-agent.ts';
import { RunError } from './run-error.ts';

/** The agents a manager runs, by id; the first is the default. */
export class RunAgents {
  readonly all: readonly ResolvedAgent[];
  readonly #byId: ReadonlyMap<string, ResolvedAgent>;
  readonly #default: ResolvedAgent;

  constructor(agents: readonly ResolvedAgent[]) {
    const [first] = agents;
    if (first === undefined) throw new TypeError('a RunManager needs at least one agent');
    this.all = agents;
    this.#default = first;
    this.#byId = new Map(agents.map((agent) => [agent.id, agent]));
    if (this.#byId.size !== agents.length) throw new TypeError('agent ids must be unique');
  }

  /** The default agent: its texts speak for runs whose agent is gone. */
  get default(): ResolvedAgent {
    return this.#default;
  }

  /**
   * The agent of that id; `''` or undefined is the default one. An id this manager does not run is
   * `unknown_agent` (a conversation of an agent that was removed from the server).
   */
  agent(agentId?: string): ResolvedAgent {
    if (agentId === undefined || agentId === '') return this.#default;
    const agent = this.#byId.get(agentId);
    if (agent === undefined) throw new RunError('unknown_agent', `no agent named ${agentId} runs here`);
    return agent;
  }

  /** A run's agent for what the manager says in it; an unknown one falls back to the default's texts. */
  ofRun(run: RunRecord): ResolvedAgent {
    return this.#byId.get(run.agentId ?? '') ?? this.#default;
  }
}
