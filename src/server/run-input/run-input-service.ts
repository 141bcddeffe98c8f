import type { MessagePause, PauseReason } from '../../protocol/index.ts';
import {
  type ResolvedAgent,
  RunError,
  type RunLog,
  type RunManager,
  type RunOptions,
  type ToolResultSubmission,
} from '../../runtime/index.ts';
import type { Conversation, RunRecord, RunStore } from '../../store/index.ts';
import { HttpError } from '../http-error.ts';
import { startRunWithin, type UserLimits } from '../user-limits.ts';
import { type AnswerRefusals, DEFAULT_ANSWER_REFUSALS } from './answer-refusals.ts';
import {
  agentForThread,
  agentMismatch,
  conversationForThread,
  dialectConversationId,
} from './dialect-conversation.ts';

export interface RunInputServiceOptions {
  store: RunStore;
  runs: RunManager;
  /** Per-user limits: a turn of any face is a run start, under the same cap on running runs. */
  limits?: UserLimits | undefined;
}

/** A thread a face's client names itself (the AI SDK's chat `id`, AG-UI's `threadId`), in its dialect. */
export interface FaceThread {
  dialect: string;
  threadId: string;
}

/**
 * Where a turn goes: the conversation of a face's thread (found, or made on its first message), or
 * one the face keeps itself (a Responses chain's), `undefined` for a new one.
 */
export type TurnPlace = { thread: FaceThread } | { conversationId: string | undefined };

/** A new user message, checked by its face: the run it starts. */
export interface UserTurn {
  /** The agent the turn runs (`agentOf`): a new conversation is made for it. */
  agentId: string;
  text: string;
  /** The client's id of the message, when the face has one that tells a message sent again. */
  clientMessageId?: string | undefined;
  options: RunOptions;
}

/** A run with its log and what it waits for. */
export interface WaitingRun {
  run: RunRecord;
  log: RunLog;
  /** `null` when it waits for nothing (a run named by id may have moved on; the runtime refuses then). */
  pause: MessagePause | null;
}

export interface Decision {
  toolCallId: string;
  decision: 'approve' | 'reject';
  note?: string | undefined;
}

/**
 * Which of a request's answers are taken:
 * - `every`: all or nothing: each names a call the run waits for, and each such call has one (AG-UI's
 *   `resume`);
 * - `pending`: those for calls the run waits for; the others (earlier answers a client sends with
 *   every request) are left, and a decision already taken is not taken again (another one is a
 *   `decision_conflict`); at least one;
 * - `as-sent`: all of them, for a run the request names by id: the runtime refuses those for no
 *   waiting call, and takes one it already has as a no-op.
 */
export type AnswerCoverage = 'every' | 'pending' | 'as-sent';

export interface AnswerOptions {
  coverage: AnswerCoverage;
  /** The face's words for refusals it says differently (see `AnswerRefusals`). */
  refusals?: Partial<AnswerRefusals> | undefined;
  /**
   * The face's log mapping, begun on the log before the answer is taken: a log that no longer holds
   * the run's start (the server restarted while the run waited) then begins at the pause, and the
   * continuation is what follows it, not a second copy of the message.
   */
  face?: ((log: RunLog) => unknown) | undefined;
  /**
   * `report`: a decision the run already has, the same (a retried request), ends the answer with
   * `retried` instead of a `decision_conflict`. Default `refuse`.
   */
  retries?: 'refuse' | 'report' | undefined;
}

/** A run the request answered: its log, and the native seq after which its continuation streams. */
export interface AnsweredRun {
  log: RunLog;
  afterSeq: number;
}

export interface DecidedRun extends AnsweredRun {
  /** With `retries: 'report'`: the call whose same decision the run already had; nothing after it was taken. */
  retried?: string;
}

export interface SubmittedRun extends AnsweredRun {
  /** Whether the results resumed the run: until every call of the pause has one, it keeps waiting. */
  resumed: boolean;
  /** The calls of the pause this request left without a result. */
  open: string[];
}

export interface StartedRun extends AnsweredRun {
  conversationId: string;
}

/**
 * The one way every face turns a request into a run (docs/integrations): the AI SDK's chat, AG-UI's
 * `RunAgentInput`, a Responses request. A face parses its request, calls this, and maps the log it
 * gets back; what the request does to runs is decided here, the same for every dialect: the thread's
 * conversation (the caller's own, of one agent), the run that waits on it, which answers are for the
 * calls it waits for, the decisions and tool results taken, or a new run started under the user's
 * limits.
 */
export class RunInputService {
  readonly #store: RunStore;
  readonly #runs: RunManager;
  readonly #limits: UserLimits | undefined;

  constructor(options: RunInputServiceOptions) {
    this.#store = options.store;
    this.#runs = options.runs;
    this.#limits = options.limits;
  }

  /**
   * The agent a turn at `place` runs: the one its conversation already has (a thread, a chain keeps
   * its agent: naming another is `agent_mismatch`, 400, with `mismatchDetails`), else the one the
   * request names (`requested`; none or `''`: the default; one the server does not run:
   * `unknown_agent`, 400).
   */
  async agentOf(
    userId: string,
    place: TurnPlace,
    requested: string | undefined,
    mismatchDetails: Record<string, unknown> = {},
  ): Promise<ResolvedAgent> {
    const runs = this.#runs;
    if ('thread' in place)
      return agentForThread(
        this.#store,
        runs,
        userId,
        place.thread.dialect,
        place.thread.threadId,
        requested,
        mismatchDetails,
      );
    const named = requested === undefined || requested === '' ? undefined : runs.agent(requested);
    if (place.conversationId === undefined) return named ?? runs.agent();
    const conversation = await this.#store.getConversation(place.conversationId);
    if (conversation === undefined || conversation.userId !== userId)
      throw new HttpError(404, 'not_found', 'no such conversation');
    // Conversations made before agents had ids say `''`: the default agent's.
    const own = runs.agent(conversation.agentId);
    if (named !== undefined && named.id !== own.id) throw agentMismatch(own.id, named.id, mismatchDetails);
    return own;
  }

  /** The caller's conversation of a face's thread; `undefined` before its first message. */
  async threadConversation(userId: string, thread: FaceThread): Promise<Conversation | undefined> {
    const conversation = await this.#store.getConversation(
      dialectConversationId(userId, thread.dialect, thread.threadId),
    );
    return conversation?.userId === userId ? conversation : undefined;
  }

  /** The run under way (running or paused) on the caller's thread; `undefined` when none is. */
  async activeRun(userId: string, thread: FaceThread): Promise<RunRecord | undefined> {
    const conversation = await this.threadConversation(userId, thread);
    return conversation === undefined ? undefined : this.#store.findActiveRun(conversation.id);
  }

  /**
   * The paused run of the caller's thread: `missing` when the caller has no such thread, `undefined`
   * when nothing on it waits.
   */
  async waitingRun(userId: string, thread: FaceThread): Promise<WaitingRun | 'missing' | undefined> {
    const conversation = await this.threadConversation(userId, thread);
    if (conversation === undefined) return 'missing';
    const run = await this.#store.findActiveRun(conversation.id);
    if (run?.status !== 'paused') return undefined;
    const log = await this.#runs.logOf(userId, run.id);
    const pause = log.state.pause;
    return pause === null ? undefined : { run, log, pause };
  }

  /**
   * The paused run a request on the caller's thread answers, or its refusal: 404 without the thread,
   * 409 when nothing waits for `reason` (any reason when absent), 409 `run_finished` when the request
   * answers another message (`messageId`) than the one of the run that waits: a stale tab's answer
   * to an earlier run (providers may number calls `call_0`) must not decide a later run's card.
   */
  async pausedRun(
    userId: string,
    thread: FaceThread,
    expected: {
      reason?: PauseReason | undefined;
      messageId?: string | undefined;
      refusals?: Partial<AnswerRefusals> | undefined;
    } = {},
  ): Promise<WaitingRun> {
    const refusals = { ...DEFAULT_ANSWER_REFUSALS, ...expected.refusals };
    const notWaiting = () => {
      const { code, message } = refusals.notWaiting(expected.reason);
      return new HttpError(409, code, message);
    };
    const conversation = await this.threadConversation(userId, thread);
    if (conversation === undefined) throw new HttpError(404, 'not_found', refusals.noThread);
    const run = await this.#store.findActiveRun(conversation.id);
    if (run?.status !== 'paused') throw notWaiting();
    if (expected.messageId !== undefined && expected.messageId !== run.messageId)
      throw new HttpError(409, 'run_finished', refusals.otherMessage, { messageId: run.messageId });
    const log = await this.#runs.logOf(userId, run.id);
    const pause = log.state.pause;
    if (pause === null || (expected.reason !== undefined && pause.reason !== expected.reason))
      throw notWaiting();
    return { run, log, pause };
  }

  /** A run the request names by id (a response): the caller's (404 otherwise), waiting or not. */
  async runOf(userId: string, runId: string): Promise<WaitingRun> {
    const run = await this.#runs.getRun(userId, runId);
    const log = await this.#runs.logOf(userId, run.id);
    return { run, log, pause: log.state.pause };
  }

  /**
   * A new user message: a run in the conversation at `place` (made, for the turn's agent, when it is
   * new), under the user's limits. Its options are checked, and the cap on running runs, before a
   * conversation is made: a refused turn leaves nothing behind.
   */
  async start(userId: string, place: TurnPlace, turn: UserTurn): Promise<StartedRun> {
    const store = this.#store;
    const runs = this.#runs;
    runs.checkRunOptions(turn.options, turn.agentId);
    // A new conversation is titled with the start of its first message.
    const title = turn.text.slice(0, 30);
    return startRunWithin(this.#limits, store, userId, async () => {
      const conversationId =
        'thread' in place
          ? (
              await conversationForThread(
                store,
                userId,
                place.thread.dialect,
                place.thread.threadId,
                title,
                turn.agentId,
              )
            ).id
          : (place.conversationId ??
            (await store.createConversation(userId, title, { agentId: turn.agentId })).id);
      const log = await runs.startRun(userId, conversationId, turn.text, turn.clientMessageId, turn.options);
      return { log, conversationId, afterSeq: 0 };
    });
  }

  /** Decisions on the run's paused confirmations; it resumes once every one is decided. */
  async decide(
    userId: string,
    waiting: WaitingRun,
    decisions: readonly Decision[],
    how: AnswerOptions,
  ): Promise<DecidedRun> {
    const { run, log } = waiting;
    how.face?.(log);
    const afterSeq = log.lastSeq;
    const taken = await this.#decisionsTaken(waiting, decisions, how);
    let decided = log;
    for (const entry of taken) {
      try {
        decided = await this.#runs.decide(userId, run.id, entry.toolCallId, entry.decision, entry.note);
      } catch (error) {
        if (how.retries === 'report' && isSameDecisionAgain(error, entry.decision))
          return { log: decided, afterSeq, retried: entry.toolCallId };
        throw error;
      }
    }
    return { log: decided, afterSeq };
  }

  /** The host's results of the run's calls to the client's own tools; it resumes once every call has one. */
  async submit(
    userId: string,
    waiting: WaitingRun,
    results: readonly ToolResultSubmission[],
    how: AnswerOptions,
  ): Promise<SubmittedRun> {
    const { run, log, pause } = waiting;
    how.face?.(log);
    const afterSeq = log.lastSeq;
    const taken = answersTaken(pendingIdsOf(pause), results, 'tool_result', how);
    const submitted = await this.#runs.submitToolResults(userId, run.id, [...taken]);
    const open = (pause?.pending ?? [])
      .map((call) => call.toolCallId)
      .filter((id) => !taken.some((result) => result.toolCallId === id));
    return { log: submitted.log, afterSeq, resumed: submitted.resumed, open };
  }

  /** The decisions to take, as `how.coverage` says (see `AnswerCoverage`). */
  async #decisionsTaken(
    waiting: WaitingRun,
    decisions: readonly Decision[],
    how: AnswerOptions,
  ): Promise<readonly Decision[]> {
    const pending = pendingIdsOf(waiting.pause);
    if (how.coverage === 'pending') {
      // A card decided by an earlier request (the run waits for another one) is not decided again: the
      // client sends its answer along with the next one. A different answer is a conflict.
      for (const call of await this.#store.listToolCalls(waiting.run.id)) {
        if (call.decision === null || !pending.has(call.toolCallId)) continue;
        pending.delete(call.toolCallId);
        const again = decisions.find((entry) => entry.toolCallId === call.toolCallId);
        if (again !== undefined && again.decision !== call.decision.decision)
          throw new HttpError(409, 'decision_conflict', await this.#alreadyDecided(waiting.run), {
            decision: call.decision,
          });
      }
    }
    return answersTaken(pending, decisions, 'confirmation', how);
  }

  /** What the run's agent says to a decision that comes after another one. */
  async #alreadyDecided(run: RunRecord): Promise<string> {
    const conversation = await this.#store.getConversation(run.conversationId);
    return this.#runs.agent(conversation?.agentId).messages.alreadyDecided;
  }
}

/** The ids of the calls a pause waits for (none when it is no pause). */
function pendingIdsOf(pause: MessagePause | null): Set<string> {
  return new Set(pause?.pending.map((call) => call.toolCallId) ?? []);
}

/** The answers for the calls in `pending`, refused as `how.coverage` says. */
function answersTaken<Answer extends { toolCallId: string }>(
  pending: ReadonlySet<string>,
  answers: readonly Answer[],
  reason: PauseReason,
  how: AnswerOptions,
): readonly Answer[] {
  if (how.coverage === 'as-sent') return answers;
  const refusals = { ...DEFAULT_ANSWER_REFUSALS, ...how.refusals };
  if (how.coverage === 'every') {
    const stray = answers.find((answer) => !pending.has(answer.toolCallId));
    if (stray !== undefined)
      throw new HttpError(400, 'invalid_request', refusals.notOpen(stray.toolCallId), { open: [...pending] });
    // All or nothing: a half-answered pause would leave nothing to stream.
    const missing = [...pending].filter((id) => !answers.some((answer) => answer.toolCallId === id));
    if (missing.length > 0) throw new HttpError(400, 'invalid_request', refusals.unanswered, { missing });
    return answers;
  }
  const taken = answers.filter((answer) => pending.has(answer.toolCallId));
  if (taken.length === 0)
    throw new HttpError(400, 'invalid_request', refusals.noAnswer(reason), { pending: [...pending] });
  return taken;
}

/** A `decision_conflict` whose decision in force is `wanted`: the same decision, sent again. */
function isSameDecisionAgain(error: unknown, wanted: Decision['decision']): boolean {
  if (!(error instanceof RunError) || error.code !== 'decision_conflict') return false;
  const first = error.details?.decision as { decision?: string } | undefined;
  return first?.decision === wanted;
}
