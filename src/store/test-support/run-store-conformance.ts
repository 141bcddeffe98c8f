import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoredMessage } from '../run-store.ts';
import { describeHostToolCallConformance } from './run-store-conformance-host-calls.ts';
import { describeRunAndToolCallConformance } from './run-store-conformance-runs.ts';
import { describeUserAndTokenConformance } from './run-store-conformance-users.ts';
import {
  createHarness,
  expectStoreError,
  type RunStoreFactory,
  type RunStoreHarness,
  SEED_CANCEL_ORDER,
  seedPausedMessage,
} from './run-store-harness.ts';

/**
 * The behaviour every `RunStore` must have, run against each implementation (`describe` blocks in
 * that implementation's test file). Each test gets a fresh store from `create`, built on a manual
 * clock the suite controls; `skip` leaves out an implementation whose server is not there.
 */
export function describeRunStoreConformance(
  name: string,
  create: RunStoreFactory,
  options: { skip?: boolean } = {},
): void {
  describe.skipIf(options.skip === true)(`${name} (RunStore conformance)`, () => {
    let harness: RunStoreHarness | undefined;
    const get = (): RunStoreHarness => {
      if (harness === undefined) throw new Error('the harness is created in beforeEach');
      return harness;
    };
    beforeEach(async () => {
      harness = await createHarness(create);
    });
    afterEach(async () => {
      await harness?.fixture.close();
      harness = undefined;
    });

    describeUserAndTokenConformance(get);
    describeConversationConformance(get);
    describeMessageConformance(get);
    describeRunAndToolCallConformance(get);
    describeHostToolCallConformance(get);
    describeRunningRunCountConformance(get);
  });
}

function describeRunningRunCountConformance(get: () => RunStoreHarness): void {
  describe('running runs per user', () => {
    it('counts a user’s running runs: not paused or finished ones, not another user’s', async () => {
      const { store } = get();
      const { user: ada, conversation: first } = await get().conversation('Ada');
      const second = await store.createConversation(ada.id, 'second');
      const third = await store.createConversation(ada.id, 'third');
      const { user: bob } = await get().conversation('Bob');
      expect(await store.countRunningRuns(ada.id)).toBe(0);
      const { run } = await get().run('running', first);
      await get().run('running', second);
      await get().run('paused', third);
      await get().run('running');
      expect(await store.countRunningRuns(ada.id)).toBe(2);
      await store.updateRun(run.id, { status: 'completed' });
      expect(await store.countRunningRuns(ada.id)).toBe(1);
      expect(await store.countRunningRuns(bob.id)).toBe(0);
      expect(await store.countRunningRuns('usr_nobody')).toBe(0);
    });
  });
}

function describeConversationConformance(get: () => RunStoreHarness): void {
  describe('conversations', () => {
    it('creates, gets and renames a conversation', async () => {
      const { store, clock } = get();
      const ada = await store.createUser('Ada');
      const conversation = await store.createConversation(ada.id, '取消订单');
      expect(conversation).toEqual({
        id: expect.stringMatching(/^conv_[0-9a-f]{32}$/),
        userId: ada.id,
        agentId: '',
        title: '取消订单',
        createdAt: clock.now(),
        updatedAt: clock.now(),
      });
      expect(await store.getConversation(conversation.id)).toEqual(conversation);
      clock.advance(1000);
      await store.renameConversation(conversation.id, '取消手表订单');
      // A rename is not activity: the list order (by updatedAt) does not change for it.
      expect(await store.getConversation(conversation.id)).toEqual({
        ...conversation,
        title: '取消手表订单',
      });
    });

    it('creates a conversation with a caller-chosen id once; the id taken again is already_exists', async () => {
      const { store } = get();
      const ada = await store.createUser('Ada');
      const bob = await store.createUser('Bob');
      const chosen = await store.createConversation(ada.id, 'from a thread', { id: 'conv_thread_1' });
      expect(chosen.id).toBe('conv_thread_1');
      expect(await store.getConversation('conv_thread_1')).toMatchObject({
        userId: ada.id,
        title: 'from a thread',
      });
      await expectStoreError(
        store.createConversation(ada.id, 'again', { id: 'conv_thread_1' }),
        'already_exists',
      );
      await expectStoreError(
        store.createConversation(bob.id, 'theirs', { id: 'conv_thread_1' }),
        'already_exists',
      );
      expect(await store.getConversation('conv_thread_1')).toMatchObject({
        userId: ada.id,
        title: 'from a thread',
      });
    });

    it('keeps the agent a conversation was created for, through renames and new messages', async () => {
      const { store, clock } = get();
      const ada = await store.createUser('Ada');
      const repair = await store.createConversation(ada.id, '洗衣机漏水', { agentId: 'homefix' });
      const chosen = await store.createConversation(ada.id, 'from a thread', {
        id: 'conv_thread_homefix',
        agentId: 'homefix',
      });
      expect(repair).toMatchObject({ userId: ada.id, agentId: 'homefix', title: '洗衣机漏水' });
      expect(chosen).toMatchObject({ id: 'conv_thread_homefix', agentId: 'homefix' });
      expect(await store.getConversation(repair.id)).toEqual(repair);
      expect(await store.getConversation(chosen.id)).toEqual(chosen);
      clock.advance(10);
      await store.renameConversation(repair.id, '洗衣机底部漏水');
      await store.addUserMessage(repair.id, '还在漏');
      expect(await store.getConversation(repair.id)).toEqual({
        ...repair,
        title: '洗衣机底部漏水',
        updatedAt: clock.now(),
      });
      expect((await store.listConversations(ada.id)).map((c) => c.agentId)).toEqual(['homefix', 'homefix']);
    });

    it("lists one agent's conversations when asked, '' being the default agent's", async () => {
      const { store, clock } = get();
      const ada = await store.createUser('Ada');
      const bob = await store.createUser('Bob');
      const shop = await store.createConversation(ada.id, 'shop');
      clock.advance(10);
      const repair = await store.createConversation(ada.id, 'repair', { agentId: 'homefix' });
      clock.advance(10);
      const named = await store.createConversation(ada.id, 'named', { agentId: 'novashop' });
      clock.advance(10);
      await store.createConversation(bob.id, 'bob repair', { agentId: 'homefix' });
      clock.advance(10);
      const laterRepair = await store.createConversation(ada.id, 'repair 2', { agentId: 'homefix' });

      expect(await store.listConversations(ada.id, { agentId: 'homefix' })).toEqual([laterRepair, repair]);
      // '' is an agent id like any other: the default agent's, not "every agent".
      expect(await store.listConversations(ada.id, { agentId: '' })).toEqual([shop]);
      expect(await store.listConversations(ada.id, { agentId: 'novashop' })).toEqual([named]);
      expect(await store.listConversations(ada.id, { agentId: 'nobody' })).toEqual([]);
      expect((await store.listConversations(ada.id, {})).map((c) => c.title)).toEqual([
        'repair 2',
        'named',
        'repair',
        'shop',
      ]);
      expect(await store.listConversations(ada.id)).toEqual(await store.listConversations(ada.id, {}));
    });

    it('answers undefined or not_found for unknown conversations and users', async () => {
      const { store } = get();
      expect(await store.getConversation('conv_nope')).toBeUndefined();
      await expectStoreError(store.renameConversation('conv_nope', 'x'), 'not_found');
      await expectStoreError(store.createConversation('usr_nobody', 'x'), 'not_found');
      expect(await store.listConversations('usr_nobody')).toEqual([]);
    });

    it("lists only the user's own conversations, most recently active first", async () => {
      const { store, clock } = get();
      const ada = await store.createUser('Ada');
      const bob = await store.createUser('Bob');
      const first = await store.createConversation(ada.id, 'first');
      const second = await store.createConversation(ada.id, 'second'); // same millisecond as first
      clock.advance(10);
      const bobs = await store.createConversation(bob.id, 'bob');
      clock.advance(10);
      const third = await store.createConversation(ada.id, 'third');
      expect((await store.listConversations(ada.id)).map((c) => c.title)).toEqual([
        'third',
        'second',
        'first',
      ]);
      expect(await store.listConversations(bob.id)).toEqual([bobs]);

      clock.advance(10);
      await store.addUserMessage(first.id, 'hello again');
      const listed = await store.listConversations(ada.id);
      expect(listed.map((c) => c.id)).toEqual([first.id, third.id, second.id]);
      expect(listed[0]?.updatedAt).toBe(clock.now());
    });
  });
}

function describeMessageConformance(get: () => RunStoreHarness): void {
  describe('messages', () => {
    it('adds user messages and lists them in creation order, ties broken by insertion', async () => {
      const { store, clock } = get();
      const { conversation } = await get().conversation();
      const first = await store.addUserMessage(conversation.id, '我买的那块表还没发货的话，帮我取消吧');
      const second = await store.addUserMessage(conversation.id, '不想要了', 'client-2');
      const third = await store.addUserMessage(conversation.id, '谢谢');
      expect(first).toEqual({
        id: expect.stringMatching(/^msg_[0-9a-f]{32}$/),
        conversationId: conversation.id,
        role: 'user',
        text: '我买的那块表还没发货的话，帮我取消吧',
        createdAt: clock.now(),
      });
      expect(second).toMatchObject({ role: 'user', clientMessageId: 'client-2' });
      expect(await store.listMessages(conversation.id)).toEqual([first, second, third]);
    });

    it('detects a retried POST by its clientMessageId, per conversation', async () => {
      const { store } = get();
      const { user, conversation } = await get().conversation();
      const other = await store.createConversation(user.id, 'other');
      const first = await store.addUserMessage(conversation.id, 'cancel it', 'client-1');
      const error = await expectStoreError(
        store.addUserMessage(conversation.id, 'cancel it', 'client-1'),
        'duplicate_client_message',
      );
      expect(error.existingId).toBe(first.id);
      expect(await store.listMessages(conversation.id)).toEqual([first]);
      // The same client id in another conversation, and messages without one, are independent.
      await store.addUserMessage(other.id, 'cancel it', 'client-1');
      await store.addUserMessage(conversation.id, 'a');
      await store.addUserMessage(conversation.id, 'b');
      expect(await store.listMessages(conversation.id)).toHaveLength(3);
    });

    it('saves an assistant message and replaces it in place, keeping its position and createdAt', async () => {
      const { store, clock } = get();
      const { conversation } = await get().conversation();
      const question = await store.addUserMessage(conversation.id, 'cancel my watch');
      const paused = seedPausedMessage();
      const started = {
        ...paused,
        blocks: paused.blocks.slice(0, 1),
        status: 'running' as const,
        lastSeq: 5,
      };
      await store.saveAssistantMessage(conversation.id, 'msg_a', SEED_CANCEL_ORDER.runId, started);
      const createdAt = clock.now();
      const after = await store.addUserMessage(conversation.id, 'later');
      clock.advance(500);
      await store.saveAssistantMessage(conversation.id, 'msg_a', SEED_CANCEL_ORDER.runId, paused);

      const messages = await store.listMessages(conversation.id);
      expect(messages.map((message) => message.id)).toEqual([question.id, 'msg_a', after.id]);
      const expected: StoredMessage = {
        id: 'msg_a',
        conversationId: conversation.id,
        role: 'assistant',
        runId: SEED_CANCEL_ORDER.runId,
        message: paused,
        createdAt,
      };
      expect(messages[1]).toEqual(expected);
      expect(paused.blocks).toHaveLength(9);
      expect(paused.status).toBe('paused');
    });

    it('bumps the conversation on a new message, not on a replaced one', async () => {
      const { store, clock } = get();
      const { conversation } = await get().conversation();
      clock.advance(100);
      await store.addUserMessage(conversation.id, 'hi');
      expect((await store.getConversation(conversation.id))?.updatedAt).toBe(clock.now());
      clock.advance(100);
      await store.saveAssistantMessage(conversation.id, 'msg_a', 'run_a', seedPausedMessage());
      const bumped = clock.now();
      expect((await store.getConversation(conversation.id))?.updatedAt).toBe(bumped);
      clock.advance(100);
      await store.saveAssistantMessage(conversation.id, 'msg_a', 'run_a', seedPausedMessage());
      expect((await store.getConversation(conversation.id))?.updatedAt).toBe(bumped);
    });

    it('refuses to save over a message of another kind, conversation or run', async () => {
      const { store } = get();
      const { user, conversation } = await get().conversation();
      const other = await store.createConversation(user.id, 'other');
      const question = await store.addUserMessage(conversation.id, 'hi');
      const message = seedPausedMessage();
      await expectStoreError(
        store.saveAssistantMessage(conversation.id, question.id, 'run_a', message),
        'conflict',
      );
      await store.saveAssistantMessage(conversation.id, 'msg_a', 'run_a', message);
      await expectStoreError(store.saveAssistantMessage(other.id, 'msg_a', 'run_a', message), 'conflict');
      await expectStoreError(
        store.saveAssistantMessage(conversation.id, 'msg_a', 'run_b', message),
        'conflict',
      );
      await expectStoreError(store.saveAssistantMessage('conv_nope', 'msg_b', 'run_a', message), 'not_found');
      await expectStoreError(store.addUserMessage('conv_nope', 'hi'), 'not_found');
      expect(await store.listMessages(other.id)).toEqual([]);
      expect(await store.listMessages('conv_nope')).toEqual([]);
    });

    it('reads one assistant message by its id as last saved, usage included; none for others', async () => {
      const { store } = get();
      const { conversation } = await get().conversation();
      const question = await store.addUserMessage(conversation.id, 'cancel my watch');
      expect(await store.getAssistantMessage('msg_a')).toBeUndefined();
      const paused = seedPausedMessage();
      await store.saveAssistantMessage(conversation.id, 'msg_a', 'run_a', { ...paused, lastSeq: 5 });
      const counted = { ...paused, usage: { inputTokens: 1200, outputTokens: 80, cachedInputTokens: 1024 } };
      await store.saveAssistantMessage(conversation.id, 'msg_a', 'run_a', counted);
      expect(await store.getAssistantMessage('msg_a')).toEqual(counted);
      expect(await store.getAssistantMessage(question.id)).toBeUndefined();
      expect(await store.getAssistantMessage('msg_nope')).toBeUndefined();
      const read = await store.getAssistantMessage('msg_a');
      read?.blocks.splice(0);
      expect((await store.getAssistantMessage('msg_a'))?.blocks).toHaveLength(9);
    });

    it('hands out copies: mutating what came back changes nothing stored', async () => {
      const { store } = get();
      const { conversation } = await get().conversation();
      const message = seedPausedMessage();
      await store.saveAssistantMessage(conversation.id, 'msg_a', 'run_a', message);
      message.blocks.length = 0;
      const [listed] = await store.listMessages(conversation.id);
      if (listed?.role !== 'assistant') throw new Error('expected the assistant message');
      expect(listed.message.blocks).toHaveLength(9);
      listed.message.blocks.length = 0;
      const [again] = await store.listMessages(conversation.id);
      expect(again?.role === 'assistant' && again.message.blocks.length).toBe(9);
    });
  });
}
