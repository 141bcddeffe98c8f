import type { ConfirmBlock, MessageState, TokenUsage } from '../../protocol/index.ts';

/** A paused confirmation as an AG-UI interrupt (`RUN_FINISHED.outcome.interrupts[]`). */
export interface AgUiInterrupt {
  id: string;
  reason: 'confirmation';
  message: string;
  toolCallId: string;
  responseSchema: Record<string, unknown>;
  metadata: { runstream: Record<string, unknown> };
}

/** The runstream part of the agent state the face reports at the end of each AG-UI run. */
export interface RunstreamState {
  runId: string | null;
  conversationId: string | null;
  messageId: string | null;
  status: 'completed' | 'paused' | 'cancelled' | 'failed' | 'interrupted';
  pause?: { reason: 'confirmation' | 'tool_result'; toolCallIds: string[] };
  reason?: string;
  error?: { code: string; message: string };
}

/**
 * How one AG-UI run ends at a stretch end of the native run (`run.paused`, `run.finished`). AG-UI's
 * `RUN_STARTED` and `RUN_FINISHED` carry the client's own `threadId`/`runId`, which the log does not
 * know, so the face records what ended and each stream writes it with its ids (see `ag-ui-log-face.ts`).
 */
export type AgUiTerminal = (
  | { outcome: 'success'; pendingToolCallIds: string[]; state: RunstreamState }
  | { outcome: 'interrupt'; interrupts: AgUiInterrupt[]; state: RunstreamState }
  | { outcome: 'cancelled'; state: RunstreamState }
  | { outcome: 'error'; code: string; message: string; state: RunstreamState }
) & {
  /**
   * What this AG-UI run's own model calls cost (`RUN_FINISHED.usage` / `RUN_ERROR.usage`): AG-UI
   * counts per run, and a run that resumes an interrupted one reports only its own calls. Absent
   * when none of them reported usage.
   */
  usage?: AgUiUsage;
};

/**
 * AG-UI's `TokenUsage` (`@ag-ui/core` 1.0), which counts as runstream does: `inputTokens` includes
 * cached input, `outputTokens` includes reasoning, a detail the provider did not report is absent.
 */
export interface AgUiUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  reasoningTokens?: number;
  cachedInputTokens?: number;
}

export function agUiUsageOf(usage: TokenUsage): AgUiUsage {
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    totalTokens: usage.inputTokens + usage.outputTokens,
    ...(usage.reasoningTokens === undefined ? {} : { reasoningTokens: usage.reasoningTokens }),
    ...(usage.cachedInputTokens === undefined ? {} : { cachedInputTokens: usage.cachedInputTokens }),
  };
}

/** What a decision looks like in a `resume` entry's `payload` (the interrupt's `responseSchema`). */
export const DECISION_RESPONSE_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    decision: { type: 'string', enum: ['approve', 'reject'] },
    note: { type: 'string', maxLength: 500 },
  },
  required: ['decision'],
};

/**
 * How the AG-UI run ends where the native run stands now (paused or ended), or `undefined` while it
 * runs: the outcome, the interrupts of a paused confirmation, the error of a failed run, runstream's
 * part of the agent state, and `usage`, what the AG-UI run's model calls cost.
 */
export function terminalOf(state: MessageState, usage?: TokenUsage): AgUiTerminal | undefined {
  const terminal = outcomeOf(state);
  if (terminal === undefined || usage === undefined) return terminal;
  return { ...terminal, usage: agUiUsageOf(usage) };
}

function outcomeOf(state: MessageState): AgUiTerminal | undefined {
  const ids = { runId: state.runId, conversationId: state.conversationId, messageId: state.messageId };
  if (state.status === 'paused' && state.pause !== null) {
    const { reason, pending } = state.pause;
    const toolCallIds = pending.map((call) => call.toolCallId);
    const runstream: RunstreamState = { ...ids, status: 'paused', pause: { reason, toolCallIds } };
    if (reason === 'tool_result')
      return { outcome: 'success', pendingToolCallIds: toolCallIds, state: runstream };
    return {
      outcome: 'interrupt',
      interrupts: pending.map((call) => interruptOf(state, call)),
      state: runstream,
    };
  }
  if (state.status === 'completed')
    return { outcome: 'success', pendingToolCallIds: [], state: { ...ids, status: 'completed' } };
  const reason = state.finishReason ? { reason: state.finishReason } : {};
  if (state.status === 'cancelled')
    return { outcome: 'cancelled', state: { ...ids, status: 'cancelled', ...reason } };
  if (state.status === 'failed' || state.status === 'interrupted') {
    const text = errorText(state);
    const error = state.error ?? {
      code: state.status === 'interrupted' ? 'interrupted' : 'run_failed',
      message: text ?? `the run ${state.status === 'failed' ? 'failed' : 'was interrupted'}`,
    };
    return {
      outcome: 'error',
      // An interrupted run's code says so whatever its reason (`server_restart`, … in the state).
      code: state.status === 'interrupted' ? 'interrupted' : error.code,
      // The error block's words are what the run told the person, in their language.
      message: text ?? error.message,
      state: { ...ids, status: state.status, error, ...reason },
    };
  }
  return undefined;
}

function interruptOf(
  state: MessageState,
  call: { toolCallId: string; name: string; args?: unknown },
): AgUiInterrupt {
  const card = state.blocks.find(
    (block): block is ConfirmBlock => block.kind === 'confirm' && block.toolCallId === call.toolCallId,
  );
  const title = card?.title ?? call.name;
  return {
    id: call.toolCallId,
    reason: 'confirmation',
    message: card?.description ? `${title} · ${card.description}` : title,
    toolCallId: call.toolCallId,
    responseSchema: DECISION_RESPONSE_SCHEMA,
    metadata: {
      runstream: {
        runId: state.runId,
        toolName: call.name,
        ...(call.args === undefined ? {} : { args: call.args }),
        title,
        description: card?.description ?? '',
        details: card?.details ?? [],
      },
    },
  };
}

/** The text of the run's last error block. */
function errorText(state: MessageState): string | undefined {
  for (let index = state.blocks.length - 1; index >= 0; index -= 1) {
    const block = state.blocks[index];
    if (block?.kind === 'error' && block.text !== '') return block.text;
  }
  return undefined;
}
