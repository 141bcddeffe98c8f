import { describe, expect, it } from 'vitest';
import type { Block, TextBlock } from '../../protocol/index.ts';
import { SentenceAnnouncer } from './sentence-announcer.ts';

function answer(text: string, status: TextBlock['status'] = 'streaming', blockId = 'b1'): TextBlock {
  return { blockId, kind: 'answer', status, text, startedAt: 1, endedAt: null, durationMs: null };
}

describe('SentenceAnnouncer', () => {
  it('announces whole sentences as they complete, never a fragment twice', () => {
    const announcer = new SentenceAnnouncer();
    expect(announcer.take([answer('找到你的')])).toEqual([]);
    expect(announcer.take([answer('找到你的订单了。它还没')])).toEqual(['找到你的订单了。']);
    expect(announcer.take([answer('找到你的订单了。它还没发货！我这')])).toEqual(['它还没发货！']);
    expect(announcer.take([answer('找到你的订单了。它还没发货！我这就提交', 'done')])).toEqual([
      '我这就提交',
    ]);
    expect(announcer.take([answer('找到你的订单了。它还没发货！我这就提交', 'done')])).toEqual([]);
  });

  it('treats an English full stop as an end only before a space, not inside 3378.00', () => {
    const announcer = new SentenceAnnouncer();
    expect(announcer.take([answer('It costs 3378.00 in total. Next')])).toEqual([
      'It costs 3378.00 in total.',
    ]);
  });

  it('skips text that was there before the baseline and ignores other block kinds', () => {
    const announcer = new SentenceAnnouncer();
    announcer.baseline([answer('旧的回答。', 'done', 'old')]);
    const reasoning: Block = { ...answer('想一想。'), kind: 'reasoning', blockId: 'r' };
    expect(
      announcer.take([answer('旧的回答。', 'done', 'old'), reasoning, answer('新的。', 'streaming', 'new')]),
    ).toEqual(['新的。']);
  });

  it('reads an error block when it arrives, but not one restored with the conversation', () => {
    const announcer = new SentenceAnnouncer();
    const old: Block = { ...answer('旧的错误', 'done', 'e1'), kind: 'error' };
    announcer.baseline([old]);
    const fresh: Block = { ...answer('模型服务出错，本轮回答已中断', 'done', 'e2'), kind: 'error' };
    expect(announcer.take([old, fresh])).toEqual(['模型服务出错，本轮回答已中断']);
  });
});
