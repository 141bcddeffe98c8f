export * from './cancel-order.ts';
export * from './create-novashop-tools.ts';
export * from './query-order.ts';
