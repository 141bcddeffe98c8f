import type { AnyAgentTool } from 'runstream';
import type { OrderRepository } from '../orders/order-repository.ts';
import { createCancelOrderTool } from './cancel-order.ts';
import { createQueryOrderTool } from './query-order.ts';

export interface NovaShopToolsOptions {
  orders: OrderRepository;
  /**
   * How much later each tool answers, as a backend over a network would: half before its work, half
   * after. Default 0. The demo's data is local and answers in a millisecond; this makes a tool's
   * `running` state last long enough to watch, or for a fault test to crash the server inside it,
   * on either side of a write (`RUNSTREAM_DEMO_TOOL_DELAY_MS`).
   */
  delayMs?: number;
}

/**
 * The NovaShop tools: `query_order` and `cancel_order` (a write; unlocked by `order-change`).
 * `search_knowledge` is not here: the agent's `knowledge` gives it, as it does to any agent.
 */
export function createNovaShopTools(options: NovaShopToolsOptions): AnyAgentTool[] {
  const tools: AnyAgentTool[] = [createQueryOrderTool(options.orders), createCancelOrderTool(options.orders)];
  const delayMs = options.delayMs ?? 0;
  return delayMs > 0 ? tools.map((tool) => withLatency(tool, delayMs)) : tools;
}

/** `tool` with `delayMs` of latency around its `execute`; its card stays as fast as it is. */
function withLatency(tool: AnyAgentTool, delayMs: number): AnyAgentTool {
  return {
    ...tool,
    async execute(args, context) {
      await sleep(delayMs / 2, context.signal);
      const result = await tool.execute(args, context);
      await sleep(delayMs / 2, context.signal);
      return result;
    },
  };
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
