import { describe, expect, it } from 'vitest';
import { ScriptedChatModel, textTurn } from '../../models/index.ts';
import type { Message } from '../../protocol/index.ts';
import { MemoryRunStore } from '../../store/index.ts';
import { testAgent } from '../test-support/test-agent.ts';
import { RunManager } from './run-manager.ts';

/** A store whose writes of assistant messages and runs fail while `down` is set (a database outage). */
class BlinkingStore extends MemoryRunStore {
  down = false;
  failures = 0;
  override async saveAssistantMessage(
    conversationId: string,
    messageId: string,
    runId: string,
    message: Message,
  ): Promise<void> {
    if (this.down) {
      this.failures += 1;
      throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
    }
    return super.saveAssistantMessage(conversationId, messageId, runId, message);
  }
}

describe('a run whose database blinks', () => {
  it('keeps streaming, and writes its ending once the database is back, whole', async () => {
    const store = new BlinkingStore();
    const user = await store.createUser('shopper');
    const conversation = await store.createConversation(user.id, '退货');
    const errors: unknown[] = [];
    const runs = new RunManager({
      agents: [
        testAgent({
          model: new ScriptedChatModel([textTurn('七天无理由退货，商品需完好。', { chunkSize: 2 })], {
            delayMs: 5,
          }),
          tools: [],
          skills: [],
          instructions: '你是 NovaShop 客服。',
        }),
      ],
      store,
      onPersistenceError: (_runId, error) => errors.push(error),
    });
    const log = await runs.startRun(user.id, conversation.id, '退货政策是什么？');
    store.down = true;
    setTimeout(() => {
      store.down = false;
    }, 500);
    await runs.settled(log.runId);
    expect(log.state.status).toBe('completed');
    expect(store.failures).toBeGreaterThan(0);
    expect(errors.length).toBeGreaterThan(0);
    // Once back, the store holds exactly what the shopper saw, and the run is not left running.
    expect(await runs.getRun(user.id, log.runId)).toMatchObject({
      status: 'completed',
      lastSeq: log.lastSeq,
    });
    const stored = (await store.listMessages(conversation.id)).find(
      (message) => message.role === 'assistant',
    );
    expect(stored?.role === 'assistant' ? stored.message.lastSeq : 0).toBe(log.lastSeq);
    expect(stored?.role === 'assistant' ? stored.message.status : '').toBe('completed');
    await runs.close();
  });

  it('gives the run up as failed, not running, when the database stays down', async () => {
    const store = new BlinkingStore();
    const user = await store.createUser('shopper');
    const conversation = await store.createConversation(user.id, '退货');
    const runs = new RunManager({
      agents: [
        testAgent({
          model: new ScriptedChatModel([textTurn('好的。'), textTurn('你好！')]),
          tools: [],
          skills: [],
          instructions: '你是 NovaShop 客服。',
        }),
      ],
      store,
      onPersistenceError: () => {},
    });
    const log = await runs.startRun(user.id, conversation.id, '你好');
    store.down = true;
    await runs.settled(log.runId);
    // The conversation is free again: the next message is not refused.
    expect((await runs.getRun(user.id, log.runId)).status).toBe('failed');
    store.down = false;
    const next = await runs.startRun(user.id, conversation.id, '你好');
    await runs.settled(next.runId);
    expect(next.state.status).toBe('completed');
    await runs.close();
  }, 20_000);
});
