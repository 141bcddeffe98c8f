import { createElement, type ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import {
  type ConfirmBlock,
  createMessageState,
  type MessageState,
  reduceAll,
  type TextBlock,
  type ToolBlock as ToolBlockData,
} from '../../protocol/index.ts';
import { SEED_CANCEL_ORDER, seedCancelOrderEvents } from '../../protocol/test-support/index.ts';
import { RunstreamTextProvider } from '../text/index.ts';
import { AnswerBlock } from './answer-block.tsx';
import { AssistantMessage } from './assistant-message.tsx';
import { defaultClassNames } from './class-names.ts';
import { ConfirmCard } from './confirm-card.tsx';
import { ErrorBlock } from './error-block.tsx';
import { ReasoningBlock } from './reasoning-block.tsx';
import { ToolBlock, type ToolBlockProps } from './tool-block.tsx';
import { humaniseToolName, toolTitle } from './tool-title.ts';

/**
 * The block components' markup, rendered with react-dom/server (no DOM, so Markdown comes out
 * escaped, never unsanitised): what a tool row says, the class names and components a page can
 * replace, and the language.
 */

const T0 = 1_750_000_000_000;

function toolBlock(overrides: Partial<ToolBlockData> = {}): ToolBlockData {
  return {
    blockId: 'b1',
    kind: 'tool',
    toolCallId: 'call_1',
    name: 'query_order',
    title: '查询订单',
    status: 'done',
    argsText: '{"orderId":"88235"}',
    args: { orderId: '88235' },
    result: { status: '已支付待发货' },
    startedAt: T0,
    endedAt: T0 + 3,
    durationMs: 3,
    ...overrides,
  };
}

function textBlock(kind: TextBlock['kind'], text: string, overrides: Partial<TextBlock> = {}): TextBlock {
  return {
    blockId: `${kind}-1`,
    kind,
    status: 'done',
    text,
    startedAt: T0,
    endedAt: T0 + 500,
    durationMs: 500,
    ...overrides,
  };
}

function html(element: ReactElement, locale?: 'zh-CN' | 'en'): string {
  return renderToStaticMarkup(
    locale === undefined ? element : createElement(RunstreamTextProvider, { locale }, element),
  );
}

/** The text a person reads in some markup: tags stripped, entities decoded, spaces folded. */
function textOf(markup: string): string {
  return markup
    .replace(/<[^>]+>/g, ' ')
    .replace(/&(quot|#x27|lt|gt|amp);/g, (_entity, name: string) => ENTITIES[name] ?? '')
    .replace(/\s+/g, ' ')
    .trim();
}

const ENTITIES: Record<string, string> = { quot: '"', '#x27': "'", lt: '<', gt: '>', amp: '&' };

/** The markup of the row (the `<summary>`), apart from the disclosure's body. */
function rowOf(markup: string): string {
  const match = /<summary[^>]*>([\s\S]*?)<\/summary>/.exec(markup);
  if (!match?.[1]) throw new Error(`no summary in ${markup}`);
  return match[1];
}

function tool(props: Partial<ToolBlockProps> & { block: ToolBlockData }, locale?: 'zh-CN' | 'en'): string {
  return html(createElement(ToolBlock, props), locale);
}

describe('the tool row', () => {
  it("shows the tool's title and an honest duration; the machine name and arguments are in its details", () => {
    const markup = tool({ block: toolBlock() });
    const row = textOf(rowOf(markup));
    expect(row).toBe('查询订单 完成 不到 0.1 秒');
    expect(row).not.toContain('query_order');
    expect(row).not.toContain('0.0');
    const details = textOf(markup.slice(markup.indexOf('</summary>')));
    expect(details).toContain('工具 query_order');
    expect(details).toContain('参数 { "orderId": "88235" }');
    expect(details).toContain('结果 { "status": "已支付待发货" }');
  });

  it('says "under 0.1 s" in English, and seconds with one decimal from 0.1 s on', () => {
    expect(textOf(rowOf(tool({ block: toolBlock({ durationMs: 99 }) }, 'en')))).toBe(
      '查询订单 Done under 0.1 s',
    );
    expect(textOf(rowOf(tool({ block: toolBlock({ durationMs: 100 }) }, 'en')))).toBe('查询订单 Done 0.1 s');
    expect(textOf(rowOf(tool({ block: toolBlock({ durationMs: 1234 }) })))).toBe('查询订单 完成 1.2 秒');
    // Still running: no duration yet, a spinner.
    const running = tool({ block: toolBlock({ status: 'running', endedAt: null, durationMs: null }) });
    expect(textOf(rowOf(running))).toBe('查询订单 运行中');
    expect(rowOf(running)).toContain('class="tool-spinner"');
  });

  it('falls back to a readable name when the tool has no title, and takes one given', () => {
    expect(textOf(rowOf(tool({ block: toolBlock({ title: ' ' }) })))).toBe('Query order 完成 不到 0.1 秒');
    expect(textOf(rowOf(tool({ block: toolBlock({ title: '' }), title: '取消订单' })))).toContain('取消订单');
    expect(humaniseToolName('cancel_order')).toBe('Cancel order');
    expect(humaniseToolName('getOrderStatus')).toBe('Get order status');
    expect(humaniseToolName('shop.refund-order')).toBe('Shop refund order');
    expect(humaniseToolName('lookup_SKU')).toBe('Lookup SKU');
    expect(humaniseToolName('___')).toBe('___');
    expect(toolTitle(toolBlock({ title: '' }), '取消订单')).toBe('取消订单');
    expect(toolTitle(toolBlock({ title: '' }), '  ')).toBe('Query order');
  });

  it('shows a failed call’s error in its details', () => {
    const markup = tool({
      block: toolBlock({ status: 'failed', result: undefined, error: { code: 'x', message: '订单不存在' } }),
    });
    expect(textOf(rowOf(markup))).toBe('查询订单 失败 不到 0.1 秒');
    expect(markup).toContain('class="tool-section tool-section-error"');
    expect(textOf(markup)).toContain('错误 订单不存在');
  });
});

describe('class names', () => {
  it('render the defaults the stylesheet styles, and the block attributes the page reads', () => {
    const markup = tool({ block: toolBlock() });
    expect(markup).toMatch(/^<div class="block block-tool" data-testid="block" data-kind="tool"/);
    expect(markup).toContain('data-status="done"');
    expect(markup).toContain('data-block-id="b1"');
    expect(markup).toContain(`class="${defaultClassNames.toolRow}"`);
  });

  it('are replaced part by part with `classNames`, and `className` adds to the root', () => {
    const markup = tool({
      block: toolBlock(),
      className: 'my-extra',
      classNames: { block: 'rounded border', toolBlock: '', toolRow: 'flex gap-2', toolTitle: 'font-bold' },
    });
    expect(markup).toMatch(/^<div class="rounded border my-extra"/);
    expect(markup).toContain('<summary class="flex gap-2">');
    expect(markup).toContain('<span class="font-bold">查询订单</span>');
    // Parts not named keep their defaults.
    expect(markup).toContain('class="tool-status"');
    expect(markup).not.toContain('tool-row');
  });

  it('reach every block of a message through AssistantMessage', () => {
    const state = reduceAll(createMessageState(), seedCancelOrderEvents());
    const markup = html(
      createElement(AssistantMessage, {
        state,
        className: 'chat-bubble',
        classNames: { message: 'msg', block: 'b', confirmCard: 'card', reasoningText: 'thought' },
      }),
    );
    expect(markup).toMatch(/^<article class="msg chat-bubble" data-status="paused"/);
    expect(markup.match(/data-testid="block"/g)).toHaveLength(9);
    expect(markup).toContain('<fieldset class="card"');
    expect(markup).toContain('<div class="thought">');
    expect(markup).not.toContain('class="block ');
    // Without `decide` the card is read-only: its buttons are there but disabled.
    expect(markup).toMatch(/<button type="button" class="confirm-button confirm-approve"[^>]* disabled=""/);
  });
});

describe('AssistantMessage', () => {
  const seed = (): MessageState => reduceAll(createMessageState(), seedCancelOrderEvents());

  it('renders the seed run’s nine blocks in order, the tool rows with their titles', () => {
    const markup = html(createElement(AssistantMessage, { state: seed() }));
    const kinds = [...markup.matchAll(/data-kind="(\w+)"/g)].map((match) => match[1]);
    expect(kinds).toEqual([
      'reasoning',
      'answer',
      'tool',
      'reasoning',
      'tool',
      'reasoning',
      'answer',
      'tool',
      'confirm',
    ]);
    const rows = [...markup.matchAll(/<summary class="tool-row">([\s\S]*?)<\/summary>/g)].map((match) =>
      textOf(match[1] ?? ''),
    );
    expect(rows[0]).toMatch(/^加载技能手册 完成/);
    expect(rows[2]).toBe('取消订单 待确认');
    for (const row of rows) expect(row).not.toMatch(/load_skill|query_order|cancel_order|0\.0/);
  });

  it('gives a tool row without a title its confirmation card’s title', () => {
    const state = seed();
    const untitled: MessageState = {
      ...state,
      blocks: state.blocks.map((block) =>
        block.kind === 'tool' && block.toolCallId === SEED_CANCEL_ORDER.toolCallIds.cancelOrder
          ? { ...block, title: '' }
          : block,
      ),
    };
    const card = untitled.blocks.find((block): block is ConfirmBlock => block.kind === 'confirm');
    const markup = html(createElement(AssistantMessage, { state: untitled }));
    const rows = [...markup.matchAll(/<summary class="tool-row">([\s\S]*?)<\/summary>/g)];
    expect(textOf(rows[2]?.[1] ?? '')).toBe(`${card?.title} 待确认`);
  });

  it('renders components of your own for a kind, with the same props, and children at the end', () => {
    const markup = html(
      createElement(
        AssistantMessage,
        {
          state: seed(),
          components: {
            tool: ({ block, title }: ToolBlockProps) =>
              createElement('li', { 'data-mine': block.name }, title ?? block.name),
          },
        },
        createElement('footer', { id: 'mine' }, 'toolbar'),
      ),
    );
    expect(
      [...markup.matchAll(/<li data-mine="(\w+)">([^<]*)<\/li>/g)].map((match) => match.slice(1)),
    ).toEqual([
      ['load_skill', '加载技能手册'],
      ['query_order', '订单查询'],
      ['cancel_order', '取消订单'],
    ]);
    expect(markup).toMatch(/<footer id="mine">toolbar<\/footer><\/article>$/);
  });

  it('says how a run ended when its blocks do not, in the chosen language', () => {
    const stopped: MessageState = { ...seed(), status: 'cancelled', finishReason: 'user_stop' };
    expect(textOf(html(createElement(AssistantMessage, { state: stopped }), 'en'))).toContain(
      'You stopped this reply',
    );
    const failed: MessageState = {
      ...createMessageState(),
      status: 'failed',
      error: { code: 'model_error', message: '模型不可用' },
    };
    expect(textOf(html(createElement(AssistantMessage, { state: failed })))).toBe('出错了 模型不可用');
  });
});

describe('the other blocks', () => {
  it('render reasoning, answers and errors as text, never as HTML, without a DOM to sanitise with', () => {
    const reasoning = html(createElement(ReasoningBlock, { block: textBlock('reasoning', '<b>想</b>') }));
    expect(reasoning).toContain('思考了 0.5 秒');
    expect(reasoning).toContain('&lt;b&gt;想&lt;/b&gt;');
    const answer = html(
      createElement(AnswerBlock, { block: textBlock('answer', '<img src=x onerror=alert(1)> **好**') }),
    );
    expect(answer).not.toContain('<img');
    expect(answer).toContain('&lt;img src=x onerror=alert(1)&gt; **好**');
    const error = html(createElement(ErrorBlock, { block: textBlock('error', '<i>坏了</i>') }), 'en');
    expect(error).toContain('&lt;i&gt;坏了&lt;/i&gt;');
    expect(textOf(error)).toBe('Something went wrong <i>坏了</i>');
  });

  it('overrides single sentences with the text provider’s messages', () => {
    const card: ConfirmBlock = {
      blockId: 'c1',
      kind: 'confirm',
      toolCallId: 'call_1',
      title: '取消订单',
      description: '订单 88235',
      details: [],
      status: 'pending',
      startedAt: T0,
      endedAt: null,
      durationMs: null,
    };
    const markup = renderToStaticMarkup(
      createElement(
        RunstreamTextProvider,
        { locale: 'en', messages: { 'block.confirm.approve': 'Yes, cancel it' } },
        createElement(ConfirmCard, { block: card, decide: () => undefined, decisionError: '409' }),
      ),
    );
    expect(textOf(markup)).toBe('取消订单 订单 88235 Yes, cancel it Cancel 409');
    expect(markup).not.toContain('disabled');
  });
});
