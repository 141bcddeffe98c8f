import type { RunPatch } from '../store/index.ts';
import { Agent, type AgentContext, type AgentOutcome } from './agent-loop.ts';
import { driveRun, type RunOutcome } from './drive-run.ts';
import type { KeyedSerialQueue } from './keyed-serial-queue.ts';
import type { OwnedRunLogs } from './owned-run-logs.ts';
import type { ResolvedAgent } from './resolved-agent.ts';
import type { RunLog } from './run-log.ts';
import type { RunManagerOptions } from './run-manager-options.ts';
import type { RunMessages } from './run-messages.ts';
import type { StoredRunOptions } from './run-options.ts';
import { settleStretch } from './settle-stretch.ts';
import type { ToolAuditEntry } from './tool-audit.ts';
import type { ToolAuditRecorder } from './tool-audit-recorder.ts';

// Driving one stretch of a run (a start or a resume) in the background, kept apart from
// `RunManager`, which decides when a stretch starts and keeps the map of the runs it drives.

/** A run this instance drives. */
export interface LiveRun {
  log: RunLog;
  /** The texts of the run's agent, for what the manager itself says in the run (an interruption). */
  messages: RunMessages;
  controller: AbortController;
  /** Settles when the current stretch (start or resume) has ended and been persisted. */
  settled: Promise<RunOutcome>;
}

/**
 * How the start and the resumption of a run hand a stretch to the manager: the agent's context for
 * the run, and driving `work` on a new agent (`driveStretch` through the manager).
 */
export interface StretchDriver {
  contextOf(
    runId: string,
    conversationId: string,
    userId: string,
    runOptions: StoredRunOptions,
  ): AgentContext;
  drive(
    runId: string,
    log: RunLog,
    context: AgentContext,
    runOptions: StoredRunOptions,
    work: (agent: Agent) => Promise<AgentOutcome>,
  ): void;
}

/** What `RunManager` lends the driving of a stretch: its options and its per-run state. */
export interface DriveStretchDeps {
  options: RunManagerOptions;
  /** Whether the runs' logs are shared by several instances (runs then carry leases). */
  shared: boolean;
  instanceId: string;
  /** The manager's runs in progress: a stretch adds its run, and takes it out when it has settled. */
  live: Map<string, LiveRun>;
  writes: KeyedSerialQueue;
  logs: OwnedRunLogs;
  audit: ToolAuditRecorder;
  /** The ending of a stretch, written only while this instance still holds the run's lease. */
  finishWrite(runId: string, patch: RunPatch): Promise<void>;
  /** The agent of a run's stored options (the default one for checkpoints that name none). */
  agentOf(agentId: string | undefined): ResolvedAgent;
}

/**
 * Drive `work` on a new agent for the run: when it ends, its ending is settled into the store (see
 * `settleStretch`) and the run leaves `live`; `live` holds it, with its abort controller, until then.
 */
export function driveStretch(
  deps: DriveStretchDeps,
  runId: string,
  log: RunLog,
  context: AgentContext,
  runOptions: StoredRunOptions,
  work: (agent: Agent) => Promise<AgentOutcome>,
): void {
  const { store } = deps.options;
  const controller = new AbortController();
  const definition = deps.agentOf(runOptions.agentId);
  const agent = stretchAgent(deps, definition, log, context, runOptions, controller.signal);
  const settled = (async (): Promise<RunOutcome> => {
    const outcome = await driveRun(log, controller.signal, () => work(agent));
    try {
      await deps.writes.idle(runId);
      const finished = await settleStretch({
        store,
        log,
        conversationId: context.conversationId,
        outcome,
        runOptions,
        finishRun: (patch) => deps.finishWrite(runId, patch),
        persistedThrough: deps.logs.persistedThrough(runId),
        stillOwned: async () => !deps.shared || (await store.getRun(runId))?.leaseOwner === deps.instanceId,
        onError: deps.options.onPersistenceError,
      });
      if (!finished) deps.logs.stopMirror(runId);
    } finally {
      deps.live.delete(runId);
      await deps.logs.releaseEnd(log);
    }
    return outcome;
  })();
  deps.live.set(runId, { log, controller, settled, messages: definition.messages });
}

/** Who the agent works for in a stretch of the run. */
export function agentContextOf(
  runId: string,
  conversationId: string,
  userId: string,
  runOptions: StoredRunOptions,
): AgentContext {
  return {
    runId,
    conversationId,
    userId,
    face: runOptions.face,
    ...(runOptions.traceId !== undefined ? { traceId: runOptions.traceId } : {}),
  };
}

function stretchAgent(
  deps: DriveStretchDeps,
  definition: ResolvedAgent,
  log: RunLog,
  context: AgentContext,
  runOptions: StoredRunOptions,
  signal: AbortSignal,
): Agent {
  const { options, audit } = deps;
  const policies = [...(options.policies ?? []), ...(definition.policies ?? [])];
  return new Agent({
    model: definition.model,
    tools: definition.tools,
    skills: definition.skills,
    messages: definition.messages,
    log,
    context,
    signal,
    hostTools: runOptions.hostTools,
    ...(policies.length > 0 ? { policies } : {}),
    ...(audit.enabled ? { onToolAudit: (entry: ToolAuditEntry) => audit.record(context.runId, entry) } : {}),
    ...(definition.maxSteps !== undefined ? { maxIterations: definition.maxSteps } : {}),
  });
}
