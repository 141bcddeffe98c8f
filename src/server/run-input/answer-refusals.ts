import type { PauseReason } from '../../protocol/index.ts';

/**
 * How a face words the refusals of a request that answers a paused run: each dialect names its
 * threads and its answers its own way ("no such chat", "resume: …"), and its clients match those
 * messages. The checks are the service's; a face gives only the words it says differently from
 * these defaults.
 */
export interface AnswerRefusals {
  /** 404 `not_found`: the caller has no conversation for the thread. */
  noThread: string;
  /**
   * 409: nothing on the thread waits for what the request answers (`reason`; `undefined` when the
   * face answers whatever the run waits for), as a code and a message.
   */
  notWaiting(reason: PauseReason | undefined): { code: string; message: string };
  /** 409 `run_finished`: the answered message is not the one of the run that waits. */
  otherMessage: string;
  /** 400 `invalid_request` (`pending` coverage): no answer is for a call the run waits for. */
  noAnswer(reason: PauseReason): string;
  /** 400 `invalid_request` (`every` coverage): an answer for a call that does not wait. */
  notOpen(toolCallId: string): string;
  /** 400 `invalid_request` (`every` coverage): a call that waits has no answer. */
  unanswered: string;
}

export const DEFAULT_ANSWER_REFUSALS: AnswerRefusals = {
  noThread: 'no such thread',
  notWaiting: (reason) =>
    reason === 'tool_result'
      ? { code: 'not_waiting_for_tool_results', message: 'nothing on this thread waits for tool results' }
      : reason === 'confirmation'
        ? { code: 'not_paused', message: 'nothing on this thread waits for a decision' }
        : { code: 'not_paused', message: 'nothing on this thread waits for an answer' },
  otherMessage: 'the answered message is not the one of the run that waits',
  noAnswer: (reason) =>
    reason === 'confirmation'
      ? 'no decision for a call the run waits for'
      : 'no tool result for a call the run waits for',
  notOpen: (toolCallId) => `no open call ${toolCallId}`,
  unanswered: 'answer every open call',
};
