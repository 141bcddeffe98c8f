import { describe, expect, it } from 'vitest';
import { argumentLabel, defaultConfirmationCard, shownValue } from './default-confirmation-card.ts';

describe('defaultConfirmationCard', () => {
  const subject = {
    title: 'Cancel an order',
    description: 'Cancel a paid order that has not shipped.',
    inputSchema: {
      type: 'object',
      properties: {
        orderId: { type: 'string', title: '订单号', description: 'The order number' },
        reason: { type: 'string', description: '取消原因' },
        notify: { type: 'boolean' },
      },
    },
  };

  it('has the tool’s title and description and a row per given argument, in the schema’s order', () => {
    expect(
      defaultConfirmationCard(subject, {
        notify: true,
        reason: '不想要了',
        orderId: '1001',
        extra: { a: 1 },
      }),
    ).toEqual({
      title: 'Cancel an order',
      description: 'Cancel a paid order that has not shipped.',
      details: [
        { label: '订单号', value: '1001' },
        { label: '取消原因', value: '不想要了' },
        { label: 'notify', value: 'true' },
        { label: 'extra', value: '{"a":1}' },
      ],
    });
  });

  it('leaves out arguments not given, and copes with no schema or no arguments', () => {
    expect(defaultConfirmationCard(subject, { orderId: '1', reason: undefined }).details).toEqual([
      { label: '订单号', value: '1' },
    ]);
    expect(defaultConfirmationCard({ title: 't', description: 'd' }, null).details).toEqual([]);
    expect(defaultConfirmationCard({ title: 't', description: 'd' }, { a: 'b' }).details).toEqual([
      { label: 'a', value: 'b' },
    ]);
  });

  it('labels by title, else the first line of the description (cut), else the name', () => {
    expect(argumentLabel('x', { title: ' 标题 ', description: 'd' })).toBe('标题');
    expect(argumentLabel('x', { title: '', description: 'First line\nsecond' })).toBe('First line');
    expect(argumentLabel('x', { description: 'y'.repeat(80) })).toBe(`${'y'.repeat(60)}…`);
    expect(argumentLabel('x', { type: 'string' })).toBe('x');
    expect(argumentLabel('x', undefined)).toBe('x');
  });

  it('shows text as it is, anything else as JSON, cut at 500 characters', () => {
    expect(shownValue('a')).toBe('a');
    expect(shownValue(3)).toBe('3');
    expect(shownValue(['a'])).toBe('["a"]');
    expect(shownValue('z'.repeat(600))).toBe(`${'z'.repeat(500)}…`);
  });
});
