import { describe, expect, it } from 'vitest';
import { en, formatMessage, type MessageKey, zhCN } from '../i18n/messages.ts';
import { usageSummary } from './usage-summary.ts';

const zh = (key: MessageKey, params?: Record<string, string | number>) => formatMessage(zhCN[key], params);
const english = (key: MessageKey, params?: Record<string, string | number>) => formatMessage(en[key], params);

describe('the timeline’s usage line', () => {
  it('says input and output with the details the provider reported, in either language', () => {
    const usage = { inputTokens: 12_600, outputTokens: 150, reasoningTokens: 40, cachedInputTokens: 10_240 };
    expect(usageSummary(usage, zh, 'zh-CN')).toBe(
      'Token 用量：输入 12,600（缓存命中 10,240） · 输出 150（推理 40）',
    );
    expect(usageSummary(usage, english, 'en')).toBe(
      'Tokens: input 12,600 (10,240 cached) · output 150 (40 reasoning)',
    );
  });

  it('leaves out a detail the provider did not report, rather than saying 0', () => {
    expect(usageSummary({ inputTokens: 900, outputTokens: 30 }, english, 'en')).toBe(
      'Tokens: input 900 · output 30',
    );
    expect(usageSummary({ inputTokens: 900, outputTokens: 30, cachedInputTokens: 0 }, zh, 'zh-CN')).toBe(
      'Token 用量：输入 900（缓存命中 0） · 输出 30',
    );
  });
});
