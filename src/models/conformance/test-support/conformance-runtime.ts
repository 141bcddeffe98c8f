import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { LoggedRunEvent, Message } from '../../../protocol/index.ts';
import { type RunLog, RunManager, type Tool } from '../../../runtime/index.ts';
import { testAgent } from '../../../runtime/test-support/test-agent.ts';
import { openDatabase, SqliteRunStore } from '../../../store/index.ts';
import type { ChatModel } from '../../chat-model.ts';

/**
 * The real runtime the conformance tests drive a provider adapter through: a `RunManager` over a
 * `SqliteRunStore` on a real temp file, with a read tool (`query_order`) and a write tool that asks
 * for confirmation (`cancel_order`). `restart` closes the manager and the database and opens new
 * ones on the same file, as a server restart would.
 */
export interface ConformanceRuntime {
  runs: RunManager;
  store: SqliteRunStore;
  userId: string;
  conversationId: string;
  /** Every tool execution, in order. */
  executed: { name: string; orderId: string }[];
  /** Close the manager and the database, then open new ones on the same file, driving `model`. */
  restart(model: ChatModel): Promise<void>;
  close(): Promise<void>;
}

export async function openConformanceRuntime(model: ChatModel): Promise<ConformanceRuntime> {
  const directory = mkdtempSync(join(tmpdir(), 'runstream-conformance-'));
  const path = join(directory, 'runstream.db');
  const executed: ConformanceRuntime['executed'] = [];
  const queryOrder: Tool<{ orderId: string }, unknown> = {
    name: 'query_order',
    title: '查询订单',
    description: 'Look up an order by its number: status, carrier, delivery date.',
    parameters: z.object({ orderId: z.string() }),
    effect: 'read',
    async execute(args) {
      executed.push({ name: 'query_order', orderId: args.orderId });
      return { orderId: args.orderId, status: '已发货', carrier: '顺丰', eta: '明天' };
    },
  };
  const cancelOrder: Tool<{ orderId: string }, unknown> = {
    name: 'cancel_order',
    title: '取消订单',
    description: 'Cancel an order that has not shipped yet.',
    parameters: z.object({ orderId: z.string() }),
    effect: 'write',
    async confirm(args) {
      return { title: '取消订单', description: `订单 ${args.orderId}`, details: [] };
    },
    async execute(args) {
      executed.push({ name: 'cancel_order', orderId: args.orderId });
      return { orderId: args.orderId, status: '已取消' };
    },
  };
  const open = (driving: ChatModel) => {
    const database = openDatabase(path);
    const store = new SqliteRunStore(database);
    const runs = new RunManager({
      agents: [
        testAgent({
          model: driving,
          tools: [queryOrder, cancelOrder],
          skills: [],
          instructions: '你是 NovaShop 的客服。',
        }),
      ],
      store,
    });
    return { database, store, runs };
  };
  let current = open(model);
  const userId = (await current.store.createUser('shopper')).id;
  const conversationId = (await current.store.createConversation(userId, '订单')).id;
  const shut = async () => {
    await current.runs.close();
    current.database.close();
  };
  const runtime: ConformanceRuntime = {
    runs: current.runs,
    store: current.store,
    userId,
    conversationId,
    executed,
    async restart(next) {
      await shut();
      current = open(next);
      runtime.runs = current.runs;
      runtime.store = current.store;
    },
    async close() {
      await shut();
      rmSync(directory, { recursive: true, force: true });
    },
  };
  return runtime;
}

/**
 * The events of a log after `afterSeq` (the tests' runs are far below the log's capacity; a log
 * continued from a persisted message after a restart holds only what came after it).
 */
export function eventsOf(log: RunLog, afterSeq = 0): LoggedRunEvent[] {
  const replay = log.since(afterSeq);
  return 'snapshot' in replay ? [replay.snapshot, ...replay.events] : replay.events;
}

/** The text of the message's error blocks: what a failed run says, the provider's refusal included. */
export function errorTextOf(message: Message): string {
  return message.blocks.flatMap((block) => (block.kind === 'error' ? [block.text] : [])).join('\n');
}

/** The assistant message the store holds for the run, as a person would see it after a refresh. */
export async function persistedMessage(runtime: ConformanceRuntime, runId: string): Promise<Message> {
  const messages = await runtime.store.listMessages(runtime.conversationId);
  const stored = messages.find((message) => message.role === 'assistant' && message.message.runId === runId);
  if (stored?.role !== 'assistant') throw new Error(`no persisted assistant message for run ${runId}`);
  return stored.message;
}
