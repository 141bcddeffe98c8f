// `node client.mjs <api url>`: runstream/client in plain Node against server.mjs, as a CLI or a
// backend would use it. A card and its approval (once: a second decision is a 409), a stop with a
// reason in the middle of an answer, the refresh path, and another shopper's 404. Prints one line per
// check; any failed check ends the script with its reason and exit code 1.
import { ConflictError, createRunstreamClient, NotFoundError } from 'runstream/client';
import { fromMessage } from 'runstream/protocol';

const baseUrl = process.argv[2];
if (baseUrl === undefined) throw new Error('usage: node client.mjs <api url>');
const client = createRunstreamClient({ baseUrl, token: 'shopper-node' });

function check(ok, line, detail) {
  if (!ok) {
    console.error(`FAIL ${line}${detail === undefined ? '' : `: ${JSON.stringify(detail)}`}`);
    process.exit(1);
  }
  console.log(`ok   ${line}`);
}

const summary = (state) => state.blocks.map((block) => `${block.kind}:${block.status}`).join(' ');
const answerOf = (state) =>
  state.blocks
    .filter((block) => block.kind === 'answer')
    .map((block) => block.text)
    .join('');

const agents = await client.listAgents();
check(agents[0]?.id === 'support', 'listAgents: the support agent', agents);

// The card: the model asks to cancel, the run pauses on a pending card and the tool has not run.
const conversation = await client.createConversation({ title: 'Order A1001' });
const paused = await client.sendMessage(conversation.id, { text: 'Please cancel order A1001' }).result();
const card = paused.blocks.find((block) => block.kind === 'confirm');
check(
  paused.status === 'paused' && card?.status === 'pending' && card.description.includes('A1001'),
  `sendMessage: run ${paused.runId} paused on the card "${card?.title}: ${card?.description}" (${summary(paused)})`,
  paused,
);

// Approve once: the tool runs and the answer quotes what it returned.
const approved = await client.decide(paused.runId, card.toolCallId, 'approve', { state: paused }).result();
check(
  approved.status === 'completed' &&
    approved.blocks.find((block) => block.kind === 'confirm')?.status === 'approved' &&
    approved.blocks.some((block) => block.kind === 'tool' && block.status === 'done') &&
    answerOf(approved).includes('refund R-A1001'),
  `decide approve: completed with "${answerOf(approved).slice(-60)}" (${summary(approved)})`,
  approved,
);
let second;
try {
  await client.decide(paused.runId, card.toolCallId, 'approve').result();
} catch (error) {
  second = error;
}
check(
  second instanceof ConflictError && second.status === 409,
  `decide again: ${second?.name} ${second?.status} ${second?.code}`,
  String(second),
);

// The refresh path: the persisted message is the streamed one.
const detail = await client.getConversation(conversation.id);
const stored = detail.messages.findLast((message) => message.role === 'assistant');
check(
  stored !== undefined && summary(fromMessage(stored.message)) === summary(approved),
  `getConversation: the stored message has the same blocks (${stored && summary(fromMessage(stored.message))})`,
  detail,
);

// Stop with a reason while the answer is being written: the run ends cancelled, the text kept so far.
const storyConversation = await client.createConversation();
const story = client.sendMessage(storyConversation.id, { text: 'Tell me a long story' });
let stopped;
for await (const { state } of story) {
  if (stopped === undefined && answerOf(state).length > 0)
    stopped = await client.cancel(state.runId, 'customer_left');
}
const ended = story.state;
check(
  stopped?.status === 'cancelled' &&
    ended.status === 'cancelled' &&
    answerOf(ended).startsWith('Line 1 of a long story.') &&
    !answerOf(ended).includes('Line 300'),
  `cancel "customer_left": run ${ended.runId} ${ended.status} after ${answerOf(ended).length} characters (${summary(ended)})`,
  { stopped, ended },
);
const run = await client.getRun(ended.runId);
check(
  run.status === 'cancelled' && run.cancelReason === 'customer_left',
  `getRun: ${run.status}, reason ${run.cancelReason}`,
  run,
);

// Another shopper does not see this one's conversation.
const stranger = createRunstreamClient({ baseUrl, token: 'shopper-stranger' });
let hidden;
try {
  await stranger.getConversation(conversation.id);
} catch (error) {
  hidden = error;
}
check(hidden instanceof NotFoundError, `another shopper: ${hidden?.name} ${hidden?.status}`, String(hidden));
