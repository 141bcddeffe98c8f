import type { AnyTool } from '../../../runtime/tool.ts';
import { sleep } from '../../../shared/index.ts';
import type { OrderRepository } from '../order-repository.ts';
import { createCancelOrderTool } from './cancel-order.ts';
import { createQueryOrderTool } from './query-order.ts';
import { createSearchKnowledgeTool, type KnowledgeSearch } from './search-knowledge.ts';

export interface NovaShopToolsOptions {
  orders: OrderRepository;
  knowledge: KnowledgeSearch;
  /**
   * How much later each tool answers, as a backend over a network would: half before its work, half
   * after. Default 0. The demo's data is local and answers in a millisecond; this makes a tool's
   * `running` state last long enough to watch, or for a fault test to crash the server inside it,
   * on either side of a write (`RUNSTREAM_DEMO_TOOL_DELAY_MS`).
   */
  delayMs?: number;
}

/** The NovaShop tools: `query_order`, `cancel_order` (write; unlocked by `order-change`), `search_knowledge`. */
export function createNovaShopTools(options: NovaShopToolsOptions): AnyTool[] {
  const tools = [
    createQueryOrderTool(options.orders),
    createCancelOrderTool(options.orders),
    createSearchKnowledgeTool(options.knowledge),
  ];
  const delayMs = options.delayMs ?? 0;
  return delayMs > 0 ? tools.map((tool) => withLatency(tool, delayMs)) : tools;
}

/** `tool` with `delayMs` of latency around its `execute`; its card (`confirm`) stays as fast as it is. */
function withLatency(tool: AnyTool, delayMs: number): AnyTool {
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
