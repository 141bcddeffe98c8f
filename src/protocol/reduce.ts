import type { Block, ConfirmBlock, ToolBlock } from './block.ts';
import { isTextBlock } from './block.ts';
import type { MessageState, ReduceAnomaly } from './message.ts';
import { fromMessage, patchState } from './message.ts';
import type {
  BlockDeltaEvent,
  BlockEndedEvent,
  BlockStartedEvent,
  BlockUpdatedEvent,
  LoggedRunEvent,
  RunEvent,
} from './run-event.ts';
import { addTokenUsage } from './token-usage.ts';

/**
 * Builds one assistant message from its run's events. Pure and total: it never throws and never
 * mutates its input. The server persists its output and the client renders its output, so
 * `reduce(all events)` and `reduce(snapshot, events after snapshot.lastSeq)` must agree.
 *
 * - An event with `seq <= state.lastSeq` is a replay and returns `state` itself (same reference).
 * - `run.snapshot` replaces the state.
 * - An event that cannot be applied (unknown block, closed block, another run) is recorded in
 *   `state.anomalies` rather than silently dropped.
 * - `done` ends a stream, not a run, and changes nothing.
 */
export function reduce(state: MessageState, event: RunEvent): MessageState {
  if (event.type === 'done') return state;
  // Checked before the replay rule, so a stray event of another run is reported, not ignored.
  if (state.runId !== null && event.runId !== state.runId) {
    return withAnomaly(state, event, 'run_mismatch', `event for run ${event.runId} in run ${state.runId}`);
  }
  if (event.seq <= state.lastSeq) return state;
  if (event.type === 'run.snapshot') {
    if (event.message.runId !== null && event.message.runId !== event.runId) {
      return withAnomaly(
        state,
        event,
        'run_mismatch',
        `snapshot of run ${event.message.runId} sent as ${event.runId}`,
      );
    }
    return patchState(fromMessage(event.message), { lastSeq: event.seq, anomalies: state.anomalies });
  }
  if (isFinished(state)) {
    // A finished run is final: whatever follows is a producer bug to surface, not to apply.
    return patchState(withAnomaly(state, event, 'after_finish', `${event.type} after the run finished`), {
      lastSeq: event.seq,
    });
  }
  // A reader that joins mid-log without run.started still pins the run it is reading.
  let next = state.runId === null ? patchState(state, { runId: event.runId }) : state;
  if (event.seq > state.lastSeq + 1) {
    next = withAnomaly(next, event, 'seq_gap', `expected seq ${state.lastSeq + 1}, got ${event.seq}`);
  }
  if (event.type === 'run.finished') next = reportOpenBlocks(next, event);
  const applied = applyLogged(next, event);
  // A state of its own (never the one given), so the caller may keep both.
  if (applied === next) return patchState(next, { lastSeq: event.seq });
  applied.lastSeq = event.seq;
  return applied;
}

/**
 * `reduce` for a state nobody else holds, such as a server's run log, which reduces every event of a
 * run as it is appended: a delta for an open block then updates the state in place (the block's text
 * and `lastSeq`) instead of copying the state, its block list and the block once per delta. Every
 * other event goes through `reduce`. The result is always equal to `reduce(state, event)` (a property
 * test holds them together). The owner must hand out copies of its open blocks (and of the block
 * list), since later deltas change them; closed blocks never change.
 */
export function reduceOwned(state: MessageState, event: RunEvent): MessageState {
  if (
    event.type !== 'block.delta' ||
    event.seq !== state.lastSeq + 1 ||
    state.runId === null ||
    event.runId !== state.runId ||
    isFinished(state)
  )
    return reduce(state, event);
  const blocks = state.blocks;
  // The block a delta extends is nearly always the newest one.
  let index = blocks.length - 1;
  while (index >= 0 && (blocks[index] as Block).blockId !== event.blockId) index -= 1;
  const block = blocks[index];
  if (block === undefined || block.endedAt !== null) return reduce(state, event);
  if (isTextBlock(block)) block.text += event.text;
  else if (block.kind === 'tool') block.argsText += event.text;
  else return reduce(state, event);
  state.lastSeq = event.seq;
  return state;
}

/** A copy of a block list that later `reduceOwned` deltas leave as it is: open blocks copied. */
export function copyOwnedBlocks(blocks: readonly Block[]): Block[] {
  return blocks.map((block) => (block.endedAt === null ? { ...block } : block));
}

function isFinished(state: MessageState): boolean {
  return (
    state.status === 'completed' ||
    state.status === 'cancelled' ||
    state.status === 'failed' ||
    state.status === 'interrupted'
  );
}

/**
 * The producer must close every block before `run.finished` (text boundaries are explicit, never
 * inferred), or a refreshed page would show text "streaming" forever. Report any it left open.
 */
function reportOpenBlocks(state: MessageState, event: LoggedRunEvent): MessageState {
  const open = state.blocks.filter((block) => block.endedAt === null && block.kind !== 'confirm');
  if (open.length === 0) return state;
  const ids = open.map((block) => block.blockId).join(', ');
  return withAnomaly(state, event, 'open_block_at_finish', `run finished with open blocks: ${ids}`);
}

/** Reduce a whole sequence from a fresh or given state. */
export function reduceAll(state: MessageState, events: Iterable<RunEvent>): MessageState {
  let current = state;
  for (const event of events) current = reduce(current, event);
  return current;
}

type AppliedEvent = Exclude<LoggedRunEvent, { type: 'run.snapshot' }>;

function applyLogged(state: MessageState, event: AppliedEvent): MessageState {
  switch (event.type) {
    case 'run.started':
      return patchState(state, {
        runId: event.runId,
        conversationId: event.conversationId,
        messageId: event.messageId,
        status: 'running',
        startedAt: event.at,
      });
    case 'block.started':
      return startBlock(state, event);
    case 'block.delta':
      return appendDelta(state, event);
    case 'block.updated':
      return updateBlock(state, event);
    case 'block.ended':
      return endBlock(state, event);
    case 'run.hint':
      return patchState(state, { hint: { code: event.code, text: event.text, at: event.at } });
    case 'run.paused':
      return patchState(state, { status: 'paused', pause: { reason: event.reason, pending: event.pending } });
    case 'run.resumed':
      return patchState(state, { status: 'running', pause: null });
    case 'step.finished':
      return event.usage === undefined
        ? state
        : patchState(state, { usage: addTokenUsage(state.usage ?? undefined, event.usage) ?? null });
    case 'run.finished':
      return patchState(state, {
        status: event.status,
        pause: null,
        hint: null,
        finishReason: event.reason ?? null,
        error: event.error ?? null,
        endedAt: event.at,
        // The producer sums the steps into `usage`; a reader that joined late (a snapshot without
        // every step) still ends with the run's total.
        usage: event.usage ?? state.usage,
      });
  }
}

function startBlock(state: MessageState, event: BlockStartedEvent): MessageState {
  if (state.blocks.some((block) => block.blockId === event.blockId)) {
    return withAnomaly(state, event, 'duplicate_block', `block ${event.blockId} already started`);
  }
  const timing = { startedAt: event.at, endedAt: null, durationMs: null };
  let block: Block;
  switch (event.kind) {
    case 'tool':
      if (state.blocks.some((other) => other.kind === 'tool' && other.toolCallId === event.toolCallId)) {
        return withAnomaly(
          state,
          event,
          'duplicate_block',
          `tool call ${event.toolCallId} already has a block`,
        );
      }
      block = {
        blockId: event.blockId,
        kind: 'tool',
        toolCallId: event.toolCallId,
        name: event.name,
        title: event.title,
        status: 'pending',
        argsText: '',
        ...(event.args !== undefined ? { args: event.args } : {}),
        ...timing,
      };
      break;
    case 'confirm':
      block = {
        blockId: event.blockId,
        kind: 'confirm',
        toolCallId: event.toolCallId,
        title: event.title,
        description: event.description,
        details: event.details,
        status: 'pending',
        ...timing,
      };
      break;
    default:
      block = { blockId: event.blockId, kind: event.kind, status: 'streaming', text: '', ...timing };
  }
  return patchState(state, { blocks: [...state.blocks, block] });
}

function appendDelta(state: MessageState, event: BlockDeltaEvent): MessageState {
  const index = state.blocks.findIndex((block) => block.blockId === event.blockId);
  const block = state.blocks[index];
  if (block === undefined) {
    return withAnomaly(state, event, 'unknown_block', `delta for unknown block ${event.blockId}`);
  }
  if (block.endedAt !== null) {
    return withAnomaly(state, event, 'block_closed', `delta for closed block ${event.blockId}`);
  }
  if (isTextBlock(block)) return replaceBlock(state, index, { ...block, text: block.text + event.text });
  if (block.kind === 'tool')
    return replaceBlock(state, index, { ...block, argsText: block.argsText + event.text });
  return withAnomaly(state, event, 'wrong_block_kind', `a ${block.kind} block takes no delta`);
}

function updateBlock(state: MessageState, event: BlockUpdatedEvent): MessageState {
  if (event.kind === 'tool') {
    // Addressed by toolCallId: however many updates a call gets, it stays one block.
    const index = state.blocks.findIndex(
      (block) => block.kind === 'tool' && block.toolCallId === event.toolCallId,
    );
    const block = state.blocks[index] as ToolBlock | undefined;
    if (block === undefined || block.blockId !== event.blockId) {
      return withAnomaly(state, event, 'unknown_block', `update for unknown tool call ${event.toolCallId}`);
    }
    if (block.endedAt !== null) {
      return withAnomaly(state, event, 'block_closed', `update for closed block ${event.blockId}`);
    }
    const updated: ToolBlock = { ...block };
    if (event.status !== undefined) updated.status = event.status;
    if (event.args !== undefined) updated.args = event.args;
    if (event.result !== undefined) updated.result = event.result;
    if (event.error !== undefined) updated.error = event.error;
    return replaceBlock(state, index, updated);
  }
  const index = state.blocks.findIndex((block) => block.blockId === event.blockId);
  const block = state.blocks[index];
  if (block === undefined) {
    return withAnomaly(state, event, 'unknown_block', `update for unknown block ${event.blockId}`);
  }
  if (block.kind !== 'confirm') {
    return withAnomaly(state, event, 'wrong_block_kind', `confirm update for a ${block.kind} block`);
  }
  if (block.endedAt !== null) {
    return withAnomaly(state, event, 'block_closed', `update for closed block ${event.blockId}`);
  }
  const updated: ConfirmBlock = { ...block, status: event.status };
  if (event.decision !== undefined) updated.decision = event.decision;
  return replaceBlock(state, index, updated);
}

function endBlock(state: MessageState, event: BlockEndedEvent): MessageState {
  const index = state.blocks.findIndex((block) => block.blockId === event.blockId);
  const block = state.blocks[index];
  if (block === undefined) {
    return withAnomaly(state, event, 'unknown_block', `end of unknown block ${event.blockId}`);
  }
  if (block.endedAt !== null) {
    return withAnomaly(state, event, 'block_closed', `block ${event.blockId} already ended`);
  }
  const timing = { endedAt: event.endedAt, durationMs: event.durationMs };
  if (isTextBlock(block)) {
    return replaceBlock(state, index, { ...block, ...timing, status: event.status ?? 'done' });
  }
  return replaceBlock(state, index, { ...block, ...timing });
}

function replaceBlock(state: MessageState, index: number, block: Block): MessageState {
  const blocks = state.blocks.slice();
  blocks[index] = block;
  return patchState(state, { blocks });
}

function withAnomaly(
  state: MessageState,
  event: LoggedRunEvent,
  code: ReduceAnomaly['code'],
  message: string,
): MessageState {
  return patchState(state, {
    anomalies: [...state.anomalies, { seq: event.seq, type: event.type, code, message }],
  });
}
