import { describe, expect, it } from 'vitest';
import { detectIntent, familiesIn, INTENT_RULES, onlyIfNotShipped, orderNumberIn } from './intent.ts';

describe('detectIntent', () => {
  it.each([
    ['我买的那块表还没发货的话，帮我取消吧，不想要了。', 'cancel'],
    ['把我那双 NovaTrail 鞋的订单取消掉', 'cancel'],
    ['请取消订单 88235', 'cancel'],
    ['我不想要那双鞋了', 'cancel'],
    ['我的订单到哪了', 'status'],
    ['88235 现在什么状态', 'status'],
    ['我的快递到哪了', 'status'],
    ['这双鞋七天内能退吗？', 'return'],
    ['取消订单后多久退款', 'return'],
    ['88235 能退吗', 'return'],
    ['这双鞋不想要了能退吗', 'return'],
    ['X2 偏小吗，我该买哪个码', 'size'],
    ['我脚长 262 毫米穿几码', 'size'],
    ['下单后多久发货', 'shipping'],
    ['运费怎么算', 'shipping'],
    ['今天天气怎么样', 'unknown'],
    ['Where is my order?', 'status'],
    ['What is the status of order 88235?', 'status'],
    ['cancel my order NS88235', 'cancel'],
    ['Please cancel the watch if it has not shipped', 'cancel'],
    ['If I cancel, when do I get my refund?', 'return'],
    ['Can I return shoes after 7 days?', 'return'],
    ['Which size should I get for the X2? Does it run small?', 'size'],
    ['How long does shipping take?', 'shipping'],
    ['Is there free shipping?', 'shipping'],
    ["What's the weather like?", 'unknown'],
    ['', 'unknown'],
  ])('%s → %s', (message, intent) => {
    expect(detectIntent(message)).toBe(intent);
  });

  it('documents every rule', () => {
    for (const rule of INTENT_RULES) expect(rule.meaning.length).toBeGreaterThan(4);
  });
});

describe('the other readings', () => {
  it('finds an order number of 5 to 12 digits standing alone', () => {
    expect(orderNumberIn('88235 现在什么状态')).toBe('88235');
    expect(orderNumberIn('订单号是88235吗')).toBe('88235');
    expect(orderNumberIn('我脚长 262')).toBeUndefined();
    expect(orderNumberIn('cancel my order NS88235')).toBe('88235');
    expect(orderNumberIn('order #88235 please')).toBe('88235');
  });

  it('maps what shoppers say to products', () => {
    expect(familiesIn('那块表').map((family) => family.label)).toEqual(['Apple Watch']);
    expect(familiesIn('X2 偏小吗').map((family) => family.label)).toEqual(['NovaTrail X2']);
    expect(familiesIn('冲锋衣和鞋').map((family) => family.label)).toEqual([
      'NovaTrail X2',
      'NovaPeak 冲锋衣',
    ]);
    expect(familiesIn('下单后多久发货')).toEqual([]);
  });

  it('hears 「还没发货的话」', () => {
    expect(onlyIfNotShipped('我买的那块表还没发货的话，帮我取消吧')).toBe(true);
    expect(onlyIfNotShipped('帮我取消 88235')).toBe(false);
    expect(onlyIfNotShipped("Cancel the watch if it hasn't shipped yet")).toBe(true);
  });
});
