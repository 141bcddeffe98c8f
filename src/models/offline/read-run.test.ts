import { describe, expect, it } from 'vitest';
import { readOutcome } from './read-run.ts';

// How a tool message reads back, whoever wrote it: the runtime, a host, a plain-text tool.
describe('readOutcome', () => {
  it.each([
    ['{"orders":[]}', { kind: 'done', value: { orders: [] } }],
    ['null', { kind: 'done', value: null }],
    ['plain text', { kind: 'done', value: 'plain text' }],
    [
      '{"error":{"code":"order_shipped","message":"已发货"}}',
      { kind: 'failed', code: 'order_shipped', message: '已发货' },
    ],
    ['{"error":"boom"}', { kind: 'failed', code: 'tool_failed', message: 'boom' }],
    [
      '{"rejected":true,"message":"用户拒绝了这个操作，未执行。"}',
      { kind: 'rejected', message: '用户拒绝了这个操作，未执行。' },
    ],
    ['{"status":"rejected"}', { kind: 'rejected', message: '' }],
    ['{"status":"done","result":{"a":1}}', { kind: 'done', value: { a: 1 } }],
  ])('%s', (content, outcome) => {
    expect(readOutcome(content)).toEqual(outcome);
  });
});
