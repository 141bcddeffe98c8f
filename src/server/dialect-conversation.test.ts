import { describe, expect, it } from 'vitest';
import { MemoryRunStore } from '../store/index.ts';
import { conversationForThread, dialectConversationId } from './dialect-conversation.ts';

describe('conversationForThread', () => {
  it('maps one user’s thread to one conversation, apart from other users and dialects', async () => {
    const store = new MemoryRunStore();
    const ada = await store.createUser('Ada');
    const bob = await store.createUser('Bob');
    const first = await conversationForThread(store, ada.id, 'ai-sdk', 'chat-1', 'hello');
    const again = await conversationForThread(store, ada.id, 'ai-sdk', 'chat-1', 'ignored');
    expect(again.id).toBe(first.id);
    expect(again.title).toBe('hello');
    const bobs = await conversationForThread(store, bob.id, 'ai-sdk', 'chat-1', 'bob');
    const otherDialect = await conversationForThread(store, ada.id, 'ag-ui', 'chat-1', 'ag');
    expect(new Set([first.id, bobs.id, otherDialect.id]).size).toBe(3);
    expect(bobs.userId).toBe(bob.id);
    expect(dialectConversationId(ada.id, 'ai-sdk', 'chat-1')).toBe(first.id);
  });

  it('lets racing first messages of one thread end on the same conversation', async () => {
    const store = new MemoryRunStore();
    const ada = await store.createUser('Ada');
    const all = await Promise.all(
      Array.from({ length: 10 }, () => conversationForThread(store, ada.id, 'ag-ui', 'thread-x', 'x')),
    );
    expect(new Set(all.map((conversation) => conversation.id)).size).toBe(1);
    expect(await store.listConversations(ada.id)).toHaveLength(1);
  });
});
