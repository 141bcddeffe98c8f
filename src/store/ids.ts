export type IdPrefix = 'usr' | 'conv' | 'msg' | 'run';

/**
 * A new random id with a readable prefix, e.g. `run_3f2a9c…`. The UUID's dashes are dropped so a
 * double click selects the whole id in a terminal or a log line.
 */
export function createId(prefix: IdPrefix): string {
  // The global Web Crypto (Node ≥ 19, browsers, workers): the store's ids are made on the Web-standard path too.
  return `${prefix}_${crypto.randomUUID().replaceAll('-', '')}`;
}
