import type { ChatMessage } from '../models/index.ts';
import { activeRunError } from './active-run-error.ts';
import type { StretchDriver } from './drive-stretch.ts';
import { historyToTranscript } from './history-transcript.ts';
import type { OwnedRunLogs } from './owned-run-logs.ts';
import type { ResolvedAgent } from './resolved-agent.ts';
import { RunError } from './run-error.ts';
import type { RunLog } from './run-log.ts';
import type { RunManagerOptions } from './run-manager-options.ts';
import type { RunOptions, StoredRunOptions } from './run-options.ts';

/** What `RunManager` lends the start of a run: its options, its logs, its ids, leases and driving. */
export interface StartRunDeps extends StretchDriver {
  /** The manager's options, read at each start as the manager read them (store, system prompt). */
  options: RunManagerOptions;
  logs: OwnedRunLogs;
  /** `invalid_request` for options a run cannot take, else the options as the checkpoint keeps them. */
  checkRunOptions(options: RunOptions, agent: ResolvedAgent): StoredRunOptions;
  /** The agent of a conversation (`''`: the default one); `unknown_agent` when none has its id. */
  agentOf(agentId: string | undefined): ResolvedAgent;
  /** The stretch this instance drives for the run, if any. */
  liveRun(runId: string): { log: RunLog; settled: Promise<unknown> } | undefined;
  newId(prefix: string): string;
  leaseFields(): { leaseOwner: string | null; leaseExpiresAt: number | null };
}

/**
 * `RunManager.startRun`, kept apart so the manager file stays about owning, stopping and finishing
 * runs: check the options and the conversation, claim the conversation with a new run, store the
 * user's message (the run fails if that does), open the run's log and drive the agent from the
 * conversation's history.
 */
export async function startRun(
  deps: StartRunDeps,
  userId: string,
  conversationId: string,
  text: string,
  clientMessageId: string | undefined,
  options: RunOptions,
): Promise<RunLog> {
  const { store } = deps.options;
  const conversation = await store.getConversation(conversationId);
  if (conversation === undefined || conversation.userId !== userId) {
    throw new RunError('not_found', 'no such conversation');
  }
  const agent = deps.agentOf(conversation.agentId);
  const runOptions = {
    ...deps.checkRunOptions(options, agent),
    agentId: agent.id,
    agentRevision: agent.revision,
  };
  let active = await store.findActiveRun(conversationId);
  // The previous run's end reaches its reader here a moment before the store has it: a message
  // sent right after it must not be refused for that.
  const ending = active === undefined ? undefined : deps.liveRun(active.id);
  if (active !== undefined && ending?.log.finished) {
    await ending.settled;
    active = await store.findActiveRun(conversationId);
  }
  if (active !== undefined) throw await activeRunError(deps.options.store, active, agent.messages);
  const history = await store.listMessages(conversationId);
  const runId = deps.newId('run');
  const messageId = deps.newId('msg');
  // Claim the conversation first (the store allows one active run), so a message that loses a
  // race is refused before it is stored rather than left behind without an answer.
  await store
    .createRun({
      id: runId,
      conversationId,
      messageId,
      userId,
      agentId: agent.id,
      agentRevision: agent.revision,
      status: 'running',
      cancelReason: null,
      lastSeq: 0,
      ...deps.leaseFields(),
    })
    .catch(async (error: unknown) => {
      if ((error as { code?: string }).code !== 'active_run_exists') throw error;
      const winner = await store.findActiveRun(conversationId);
      if (winner?.status === 'paused') throw await activeRunError(store, winner, agent.messages);
      throw new RunError('run_in_progress', agent.messages.runInProgress);
    });
  try {
    await store.addUserMessage(conversationId, text, clientMessageId);
  } catch (error) {
    await store.updateRun(runId, { status: 'failed', leaseOwner: null });
    throw error;
  }
  const log = deps.logs.open(runId, conversationId, messageId);
  log.append({
    type: 'run.started',
    conversationId,
    messageId,
    ...(runOptions.traceId !== undefined ? { traceId: runOptions.traceId } : {}),
  });
  const systemPrompt =
    runOptions.instructions !== undefined && runOptions.instructions !== ''
      ? `${agent.instructions}\n\n${runOptions.instructions}`
      : agent.instructions;
  const transcript: ChatMessage[] = [
    { role: 'system', content: systemPrompt },
    ...historyToTranscript(history),
    { role: 'user', content: text },
  ];
  deps.drive(runId, log, deps.contextOf(runId, conversationId, userId, runOptions), runOptions, (agent) =>
    agent.start(transcript),
  );
  return log;
}
