import type { ControlChannel, EventLog } from '../../bus/index.ts';
import type { RunStore, ToolAuditLog } from '../../store/index.ts';
import type { ResolvedAgent } from '../agent/resolved-agent.ts';
import type { ToolPolicy } from '../tools/tool-policy.ts';

// What a `RunManager` is built from: the agents it runs (what a run does) and the infrastructure it
// runs them on (where runs, logs, stops and leases live). In its own file so the parts split out of
// the manager can take the options without importing it (the folder's `index.ts` exports the type).
export interface RunManagerOptions {
  /**
   * The agents this manager runs, ids unique. Each conversation belongs to one (`agentId`); the
   * first is the default for conversations that name none.
   */
  agents: readonly ResolvedAgent[];
  store: RunStore;
  /** Events kept per run for replay. Default 10,000. */
  logCapacity?: number;
  /** Names this server instance on the runs it drives (leases). Default: a random id. */
  instanceId?: string;
  newId?: (prefix: string) => string;
  /** Told about a failed write of a run's state (it is retried when the stretch ends), or of an audit entry. */
  onPersistenceError?: (runId: string, error: unknown) => void;
  /**
   * The server's governance hooks, checked in order for every tool call of every agent (server, host
   * and `load_skill`) after its arguments validate and before it runs, shows its card or pauses for
   * the host; each agent's own `policies` come after these.
   */
  policies?: readonly ToolPolicy[];
  /** Where each tool call's audit entry goes once its outcome is known (best effort). */
  audit?: ToolAuditLog;
  /**
   * The runs' live logs, shared by every instance (Redis Streams). Giving one makes this manager
   * one of N instances: runs carry leases, stops travel over `control`, and any instance serves,
   * stops, confirms or resumes any run. Without it, everything stays in this process.
   */
  eventLog?: EventLog;
  /** Stop signals between instances. Default: in process. */
  control?: ControlChannel;
  /** How long a run's lease lasts without renewal (shared mode). Default 10,000 ms. */
  leaseMs?: number;
  /** How long appends to the shared log are retried before the run is interrupted. Default 10,000 ms. */
  liveLogGiveUpMs?: number;
}
