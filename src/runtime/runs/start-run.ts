import type { ChatMessage } from '../../models/index.ts';
import type { RunStore } from '../../store/index.ts';
import { historyToTranscript } from '../agent/history-transcript.ts';
import type { RunLog } from '../log/run-log.ts';
import { activeRunError } from './active-run-error.ts';
import { agentContextOf } from './agent-context-of.ts';
import type { RunAgents } from './run-agents.ts';
import type { RunDriver } from './run-driver.ts';
import { RunError } from './run-error.ts';
import { checkRunOptions, type RunOptions } from './run-options.ts';

/**
 * The start of a run (`RunManager.startRun`): check the options and the conversation, claim the
 * conversation with a new run, store the user's message (the run fails if that does), open the run's
 * log and drive the agent from the conversation's history.
 */
export class RunStarter {
  readonly #store: RunStore;
  readonly #agents: RunAgents;
  readonly #driver: RunDriver;
  readonly #newId: (prefix: string) => string;

  constructor(store: RunStore, agents: RunAgents, driver: RunDriver, newId: (prefix: string) => string) {
    this.#store = store;
    this.#agents = agents;
    this.#driver = driver;
    this.#newId = newId;
  }

  async start(
    userId: string,
    conversationId: string,
    text: string,
    clientMessageId: string | undefined,
    options: RunOptions,
  ): Promise<RunLog> {
    const store = this.#store;
    const conversation = await store.getConversation(conversationId);
    if (conversation === undefined || conversation.userId !== userId) {
      throw new RunError('not_found', 'no such conversation');
    }
    const agent = this.#agents.agent(conversation.agentId);
    const runOptions = {
      ...checkRunOptions(
        options,
        agent.tools.map((tool) => tool.name),
      ),
      agentId: agent.id,
      agentRevision: agent.revision,
    };
    let active = await store.findActiveRun(conversationId);
    // The previous run's end (or pause) reaches its reader here a moment before the store has it: a
    // message sent right after it must not be refused for that, nor refused with the wrong reason.
    const ending = active === undefined ? undefined : this.#driver.live(active.id);
    if (active !== undefined && (ending?.log.finished || ending?.log.paused)) {
      await ending.settled;
      active = await store.findActiveRun(conversationId);
    }
    if (active !== undefined) throw await activeRunError(store, active, agent.messages);
    const history = await store.listMessages(conversationId);
    const runId = this.#newId('run');
    const messageId = this.#newId('msg');
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
        ...this.#driver.leaseFields(),
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
    const log = this.#driver.open(runId, conversationId, messageId);
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
    this.#driver.drive(
      runId,
      log,
      agentContextOf(runId, conversationId, userId, runOptions),
      runOptions,
      (agent) => agent.start(transcript),
    );
    return log;
  }
}
