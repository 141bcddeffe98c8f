/**
 * The NovaShop demo domain: orders (SQLite), the tools the agent calls, the skills (handbooks) it
 * loads, the seed data, and the offline demo model.
 */
export * from './create-novashop-domain.ts';
export { detectIntent, INTENT_RULES, type Intent, type IntentRule } from './demo-model/intent.ts';
export * from './load-novashop-skills.ts';
export * from './novashop-demo-model.ts';
export * from './order-repository.ts';
export * from './seed-novashop.ts';
export * from './sqlite-order-repository.ts';
export * from './tools/index.ts';
