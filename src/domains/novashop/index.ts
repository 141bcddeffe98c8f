/**
 * The NovaShop demo domain: orders (SQLite, or PostgreSQL for several instances), the tools the
 * agent calls, the skills (handbooks) it loads, the seed data, and the offline demo model.
 */
export * from './create-novashop-domain.ts';
export { detectIntent, INTENT_RULES, type Intent, type IntentRule } from './demo-model/intent.ts';
export * from './load-novashop-skills.ts';
export * from './novashop-demo-model.ts';
export * from './order-repository.ts';
export type { NewOrder, Product } from './order-rows.ts';
export * from './postgres-order-repository.ts';
export * from './seed-novashop.ts';
export * from './sqlite-order-repository.ts';
export * from './tools/index.ts';
