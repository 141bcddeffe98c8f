import type { Block, MessageState } from '../../protocol/index.ts';
import { findBlock, type PlainOutputItem } from './plain-items.ts';
import {
  buildResponseObject,
  type ResponseContext,
  type ResponseObject,
  type ResponseUsage,
} from './response-object.ts';

/**
 * The id of a stretch's response in the plain shape: the run's id for its first stretch, and
 * `<runId>.<seq>` for the stretch a `run.resumed` at native seq `seq` began (stable across restarts,
 * since native seqs are).
 */
export function stretchResponseId(runId: string, resumedSeq: number): string {
  return resumedSeq === 0 ? runId : `${runId}.${resumedSeq}`;
}

/** The run and stretch a response id names (`resumedSeq` 0: the run's first stretch). */
export function parseResponseId(id: string): { runId: string; resumedSeq: number } {
  const match = /^(.+)\.(\d+)$/.exec(id);
  if (match === null) return { runId: id, resumedSeq: 0 };
  return { runId: match[1] as string, resumedSeq: Number(match[2]) };
}

/** One stretch of a run: from its start or a resume to the next pause or its end. */
export interface Stretch {
  id: string;
  /** The native seq of the event that began it (`run.started`, `run.resumed`, `run.snapshot`). */
  startSeq: number;
  /** The native seq of the event that ended it (`run.paused`, `run.finished`), or `null` while open. */
  endSeq: number | null;
  previousId: string | null;
  createdAt: number;
  /** Block ids (or `call:<blockId>` for host calls) in output order. */
  readonly items: string[];
  /** The host calls the stretch's resume answered. */
  readonly resumedCalls: string[];
  /** The response as the stretch ended. */
  final: ResponseObject | null;
}

export type StretchStatus = 'in_progress' | 'completed' | 'cancelled' | 'failed';

/**
 * A stretch's response in the plain shape: the OpenAI `Response` fields with the stretch's id,
 * status and items only; `previous_response_id` names the stretch before it.
 */
export function buildStretchResponse(
  context: ResponseContext,
  state: MessageState,
  stretch: Stretch,
  status: StretchStatus,
  usage: ResponseUsage | null,
  itemOf: (block: Block, isCall: boolean) => PlainOutputItem | undefined,
): ResponseObject {
  const output: PlainOutputItem[] = [];
  for (const key of stretch.items) {
    const isCall = key.startsWith('call:');
    const block = findBlock(state, isCall ? key.slice(5) : key);
    const item = block === undefined ? undefined : itemOf(block, isCall);
    if (item !== undefined) output.push(item);
  }
  const base = buildResponseObject(context, state);
  return {
    ...base,
    usage: status === 'in_progress' ? null : usage,
    id: stretch.id,
    created_at: Math.floor(stretch.createdAt / 1000),
    status,
    error:
      status === 'failed'
        ? (state.error ?? { code: state.status, message: state.finishReason ?? 'the run failed' })
        : null,
    output: output as unknown as ResponseObject['output'],
    output_text: output
      .flatMap((item) => (item.type === 'message' ? item.content.map((part) => part.text) : []))
      .join(''),
    previous_response_id: stretch.previousId,
    required_action: null,
    cancel_reason: status === 'cancelled' ? state.finishReason : null,
  };
}
