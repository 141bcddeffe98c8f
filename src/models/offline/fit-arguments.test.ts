import { describe, expect, it } from 'vitest';
import { fitArguments } from './fit-arguments.ts';

const NOW = new Date(2025, 5, 1, 10, 0); // 1 June 2025

describe('fitArguments', () => {
  it('takes an identifier by its pattern, and the first token that fits', () => {
    const schema = {
      type: 'object',
      properties: { repairId: { type: 'string', pattern: '^R-\\d+$' } },
      required: ['repairId'],
    };
    expect(fitArguments(schema, '取消 2 号的维修单 R-1001，不是 R-1002')).toEqual({
      args: { repairId: 'R-1001' },
      missing: [],
    });
    expect(fitArguments(schema, '取消维修单 1001')).toEqual({
      args: {},
      missing: [{ path: 'repairId', label: 'repairId' }],
    });
  });

  it('takes an identifier by its name or description: a token with a digit, letters first', () => {
    const schema = {
      type: 'object',
      properties: {
        serial: { type: 'string', description: '机身序列号' },
        orderNo: { type: 'string' },
      },
      required: ['serial', 'orderNo'],
    };
    expect(fitArguments(schema, '订单 20250601 里序列号 SN-778812 的洗衣机').args).toEqual({
      serial: 'SN-778812',
      orderNo: '20250601',
    });
    expect(fitArguments(schema, '洗衣机 SN-778812 坏了').missing).toEqual([
      { path: 'orderNo', label: 'orderNo' },
    ]);
  });

  it('reads identifiers before numbers, whatever order the schema declares them in', () => {
    const schema = {
      type: 'object',
      properties: {
        quantity: { type: 'integer', minimum: 1, maximum: 5 },
        orderId: { type: 'string', description: '订单号' },
      },
      required: ['quantity', 'orderId'],
    };
    const fitted = fitArguments(schema, '订单 1002 里退 2 件');
    expect(fitted.args).toEqual({ quantity: 2, orderId: '1002' });
    expect(Object.keys(fitted.args)).toEqual(['quantity', 'orderId']);
  });

  it('keeps numbers within their bounds, else asks', () => {
    const schema = {
      type: 'object',
      properties: { count: { type: 'integer', minimum: 1, maximum: 3, title: '数量' } },
      required: ['count'],
    };
    expect(fitArguments(schema, '要 9 个，不，2 个').args).toEqual({ count: 2 });
    expect(fitArguments(schema, '要 9 个').missing).toEqual([{ path: 'count', label: '数量' }]);
  });

  it('takes the enum value the message mentions, else the default, else asks', () => {
    const schema = {
      type: 'object',
      properties: {
        slot: { type: 'string', enum: ['上午', '下午'] },
        level: { type: 'string', enum: ['low', 'high'], default: 'low' },
        mode: { type: 'string', enum: ['fast', 'slow'], description: 'How fast, e.g. fast' },
      },
      required: ['slot', 'level', 'mode'],
    };
    expect(fitArguments(schema, 'slow 下午 please')).toEqual({
      args: { slot: '下午', level: 'low', mode: 'slow' },
      missing: [],
    });
    expect(fitArguments(schema, '下午').missing).toEqual([{ path: 'mode', label: 'How fast' }]);
  });

  it('reads a labelled value, and quoted text for a required string', () => {
    const schema = {
      type: 'object',
      properties: {
        address: { type: 'string', title: '地址' },
        contact: { type: 'string', title: '联系人' },
        note: { type: 'string' },
      },
      required: ['address', 'contact'],
    };
    expect(fitArguments(schema, '上门地址：朝阳区建国路 1 号，联系人是王先生').args).toEqual({
      address: '朝阳区建国路 1 号',
      contact: '王先生',
    });
    expect(fitArguments(schema, '联系人是王先生').missing).toEqual([{ path: 'address', label: '地址' }]);
  });

  it('fills free text from quotes or a reason, the whole message only when required', () => {
    const optional = { type: 'object', properties: { reason: { type: 'string' } } };
    expect(fitArguments(optional, '取消 R-1 吧，因为我自己修好了。').args).toEqual({
      reason: '我自己修好了',
    });
    expect(fitArguments(optional, '取消 R-1 吧').args).toEqual({});
    const required = { ...optional, required: ['reason'] };
    expect(fitArguments(required, '取消 R-1 吧').args).toEqual({ reason: '取消 R-1 吧' });
  });

  it('reads dates, relative days and times', () => {
    const schema = {
      type: 'object',
      properties: { day: { type: 'string', format: 'date' }, at: { type: 'string', format: 'date-time' } },
      required: ['day'],
    };
    expect(fitArguments(schema, '改到明天', { now: NOW }).args).toEqual({ day: '2025-06-02' });
    expect(fitArguments(schema, 'move it to 2025-07-03', { now: NOW }).args).toEqual({ day: '2025-07-03' });
    expect(fitArguments(schema, '6月9日', { now: NOW }).args).toEqual({ day: '2025-06-09' });
    const visit = {
      type: 'object',
      properties: { at: { type: 'string', format: 'date-time' } },
      required: ['at'],
    };
    expect(fitArguments(visit, '后天下午3点半', { now: NOW }).args).toEqual({ at: '2025-06-03T15:30:00' });
    expect(fitArguments(visit, 'tomorrow', { now: NOW }).missing).toEqual([{ path: 'at', label: 'at' }]);
  });

  it('leaves optional arguments out unless given, and fills required booleans and arrays', () => {
    const schema = {
      type: 'object',
      properties: {
        email: { type: 'string', format: 'email' },
        phone: { type: 'string', description: '手机号' },
        urgent: { type: 'boolean' },
        tags: { type: 'array', items: { type: 'string' } },
        limit: { type: 'integer', default: 10 },
      },
      required: ['urgent', 'tags'],
    };
    expect(fitArguments(schema, '联系我 138 0013 8000 或 a.b@example.com').args).toEqual({
      email: 'a.b@example.com',
      phone: '13800138000',
      urgent: false,
      tags: [],
    });
  });

  it('follows $ref, anyOf and nested required objects, naming the nested path', () => {
    const schema = {
      type: 'object',
      $defs: { id: { type: 'string', pattern: '^T\\d+$' } },
      properties: {
        ticket: { $ref: '#/$defs/id' },
        target: {
          type: 'object',
          properties: { city: { type: 'string', title: '城市' } },
          required: ['city'],
        },
        comment: { anyOf: [{ type: 'null' }, { type: 'string' }] },
      },
      required: ['ticket', 'target'],
    };
    expect(fitArguments(schema, '工单 T42，因为很急')).toEqual({
      args: { ticket: 'T42', target: {}, comment: '很急' },
      missing: [{ path: 'target.city', label: '城市' }],
    });
  });
});
