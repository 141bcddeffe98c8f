import type { AnyTool } from '../../../runtime/tool.ts';
import type { OrderRepository } from '../order-repository.ts';
import { createCancelOrderTool } from './cancel-order.ts';
import { createQueryOrderTool } from './query-order.ts';
import { createSearchKnowledgeTool, type KnowledgeSearch } from './search-knowledge.ts';

export interface NovaShopToolsOptions {
  orders: OrderRepository;
  knowledge: KnowledgeSearch;
}

/** The NovaShop tools: `query_order`, `cancel_order` (write; unlocked by `order-change`), `search_knowledge`. */
export function createNovaShopTools(options: NovaShopToolsOptions): AnyTool[] {
  return [
    createQueryOrderTool(options.orders),
    createCancelOrderTool(options.orders),
    createSearchKnowledgeTool(options.knowledge),
  ];
}
