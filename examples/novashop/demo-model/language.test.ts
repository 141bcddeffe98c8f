import { describe, expect, it } from 'vitest';
import { citationNote, languageOf } from './language.ts';

describe('languageOf', () => {
  it.each([
    ['Where is my order?', 'en'],
    ['cancel my order NS88235', 'en'],
    ['退货政策是怎样的？七天无理由吗？', 'zh'],
    ['Apple Watch 能退吗', 'zh'],
    ['88235', 'zh'],
    ['', 'zh'],
  ])('%s → %s', (question, language) => {
    expect(languageOf(question)).toBe(language);
  });
});

describe('citationNote', () => {
  it('lists the citations once, in the spelling the page links', () => {
    expect(citationNote('zh', ['a.md#L1', 'b.md#L2'])).toBe('（来源：a.md#L1；b.md#L2）');
    expect(citationNote('en', ['a.md#L1'])).toBe(' (source: a.md#L1)');
    expect(citationNote('en', [])).toBe('');
  });
});
