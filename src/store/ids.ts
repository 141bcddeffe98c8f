import { randomUUID } from 'node:crypto';

export type IdPrefix = 'usr' | 'conv' | 'msg' | 'run';

/**
 * A new random id with a readable prefix, e.g. `run_3f2a9c…`. The UUID's dashes are dropped so a
 * double click selects the whole id in a terminal or a log line.
 */
export function createId(prefix: IdPrefix): string {
  return `${prefix}_${randomUUID().replaceAll('-', '')}`;
}
