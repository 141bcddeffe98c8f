import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ScriptedChatModel } from '../../models/index.ts';
import { RunManager } from '../../runtime/index.ts';
import { testAgent } from '../../runtime/test-support/test-agent.ts';
import { MemoryRunStore } from '../../store/index.ts';
import { HttpError } from '../http-error.ts';
import { agentForThread, conversationForThread, dialectConversationId } from './dialect-conversation.ts';

describe('conversationForThread', () => {
  it('maps one user’s thread to one conversation, apart from other users and dialects', async () => {
    const store = new MemoryRunStore();
    const ada = await store.createUser('Ada');
    const bob = await store.createUser('Bob');
    const first = await conversationForThread(store, ada.id, 'ai-sdk', 'chat-1', 'hello', 'alpha');
    const again = await conversationForThread(store, ada.id, 'ai-sdk', 'chat-1', 'ignored', 'alpha');
    expect(again.id).toBe(first.id);
    expect(again.title).toBe('hello');
    expect(first.agentId).toBe('alpha');
    const bobs = await conversationForThread(store, bob.id, 'ai-sdk', 'chat-1', 'bob', 'alpha');
    const otherDialect = await conversationForThread(store, ada.id, 'ag-ui', 'chat-1', 'ag', 'beta');
    expect(new Set([first.id, bobs.id, otherDialect.id]).size).toBe(3);
    expect(bobs.userId).toBe(bob.id);
    expect(otherDialect.agentId).toBe('beta');
    expect(dialectConversationId(ada.id, 'ai-sdk', 'chat-1')).toBe(first.id);
  });

  it('derives the ids it always did (node:crypto’s SHA-256), so stored threads keep their conversations', () => {
    for (const [userId, dialect, threadId] of [
      ['usr_1', 'ai-sdk', 'chat-1'],
      ['usr_demo', 'ag-ui', '线程·一 🧵'],
      ['u', 'responses', 'x'.repeat(200)],
    ] as const) {
      const digest = createHash('sha256').update(`${userId}\u0000${dialect}\u0000${threadId}`).digest('hex');
      expect(dialectConversationId(userId, dialect, threadId)).toBe(
        `conv_${dialect.replace('-', '')}_${digest.slice(0, 24)}`,
      );
    }
  });

  it('lets racing first messages of one thread end on the same conversation', async () => {
    const store = new MemoryRunStore();
    const ada = await store.createUser('Ada');
    const all = await Promise.all(
      Array.from({ length: 10 }, () =>
        conversationForThread(store, ada.id, 'ag-ui', 'thread-x', 'x', 'alpha'),
      ),
    );
    expect(new Set(all.map((conversation) => conversation.id)).size).toBe(1);
    expect(await store.listConversations(ada.id)).toHaveLength(1);
  });

  it('refuses the loser of a race that named another agent than the winner', async () => {
    const store = new MemoryRunStore();
    const ada = await store.createUser('Ada');
    const [alpha, beta] = await Promise.allSettled([
      conversationForThread(store, ada.id, 'ag-ui', 'thread-y', 'y', 'alpha'),
      conversationForThread(store, ada.id, 'ag-ui', 'thread-y', 'y', 'beta'),
    ]);
    expect(alpha).toMatchObject({ status: 'fulfilled', value: { agentId: 'alpha' } });
    expect(beta).toMatchObject({ status: 'rejected', reason: { code: 'agent_mismatch', status: 400 } });
  });
});

describe('agentForThread', () => {
  const store = new MemoryRunStore();
  const runs = new RunManager({
    agents: [
      testAgent({ id: 'alpha', model: new ScriptedChatModel([]) }),
      testAgent({ id: 'beta', model: new ScriptedChatModel([]) }),
    ],
    store,
  });

  it('gives a new thread the agent it names, the default when it names none', async () => {
    const ada = await store.createUser('Ada');
    expect((await agentForThread(store, runs, ada.id, 'ai-sdk', 'new', 'beta')).id).toBe('beta');
    expect((await agentForThread(store, runs, ada.id, 'ai-sdk', 'new', undefined)).id).toBe('alpha');
    expect((await agentForThread(store, runs, ada.id, 'ai-sdk', 'new', '')).id).toBe('alpha');
    await expect(agentForThread(store, runs, ada.id, 'ai-sdk', 'new', 'gamma')).rejects.toMatchObject({
      code: 'unknown_agent',
    });
  });

  it('keeps a thread’s agent and refuses a request naming another', async () => {
    const ada = await store.createUser('Ada');
    await conversationForThread(store, ada.id, 'ai-sdk', 'chat-b', 'b', 'beta');
    expect((await agentForThread(store, runs, ada.id, 'ai-sdk', 'chat-b', undefined)).id).toBe('beta');
    expect((await agentForThread(store, runs, ada.id, 'ai-sdk', 'chat-b', 'beta')).id).toBe('beta');
    const refused = await agentForThread(store, runs, ada.id, 'ai-sdk', 'chat-b', 'alpha').catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(HttpError);
    expect(refused).toMatchObject({ status: 400, code: 'agent_mismatch', details: { agentId: 'beta' } });
    // A conversation made before agents had ids (`''`) is the default agent's.
    await store.createConversation(ada.id, 'old', { id: dialectConversationId(ada.id, 'ai-sdk', 'old') });
    expect((await agentForThread(store, runs, ada.id, 'ai-sdk', 'old', 'alpha')).id).toBe('alpha');
    await expect(agentForThread(store, runs, ada.id, 'ai-sdk', 'old', 'beta')).rejects.toMatchObject({
      code: 'agent_mismatch',
    });
  });
});
