// The agent's model for the package test: deterministic, no network. Each turn is chosen from the
// conversation so far and played by `scriptedModel` from `runstream/testing`, so the same message
// always gets the same card, however many conversations the test runs and in whatever order.
import { scriptedModel } from 'runstream/testing';

/** Deltas of the story stream this far apart, so a stop lands while the answer is being written. */
const STORY_DELAY_MS = 40;
const STORY = Array.from({ length: 300 }, (_, index) => `Line ${index + 1} of a long story. `);

function nextTurn(request) {
  const last = request.messages.at(-1);
  if (last?.role === 'tool') {
    const result = JSON.parse(last.content);
    // A rejected or failed call comes back without the tool's own result.
    if (result?.status !== 'cancelled') return `The order was not cancelled (${last.content}).`;
    return {
      reasoning: 'The tool says the order is cancelled.',
      text: `Order ${result.orderId} is cancelled; refund ${result.refund} is on its way.`,
    };
  }
  const text = last?.role === 'user' ? last.content : '';
  const cancel = /cancel order ([A-Z]\d+)/i.exec(text);
  if (cancel !== null)
    return {
      reasoning: 'The shopper wants an order cancelled; that needs their approval.',
      text: 'I will cancel that order once you confirm.',
      toolCalls: [{ name: 'cancel_order', arguments: { orderId: cancel[1] } }],
    };
  if (/story/i.test(text)) return { parts: scriptedTextParts(STORY), delayMs: STORY_DELAY_MS };
  return 'Hello! Ask me to cancel an order.';
}

function scriptedTextParts(pieces) {
  return pieces.map((piece) => ({ type: 'text-delta', text: piece }));
}

/** A `ChatModel`: a name and `stream(request)`, here one scripted turn per call. */
export const packageTestModel = {
  name: 'package-test',
  stream(request) {
    return scriptedModel([nextTurn(request)], { chunkSize: 12 }).stream(request);
  },
};
