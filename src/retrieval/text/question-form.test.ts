import { describe, expect, it } from 'vitest';
import { stripQuestionForm } from './question-form.ts';

describe('stripQuestionForm', () => {
  it.each([
    ['能不能退', '退'],
    ['这双鞋七天内能退吗？', '这双鞋7天内能退?'],
    ['我想问一下发票怎么开', '发票开'],
    ['請問退款多久會到帳呢', '退款多久会到账'],
    ['有没有运费险', '有运费险'],
    ['退货需要什么条件', '退货需要条件'],
  ])('%s → %s', (query, stripped) => {
    expect(stripQuestionForm(query)).toBe(stripped);
  });

  it('keeps content that merely looks like a question word', () => {
    expect(stripQuestionForm('问题')).toBe('问题');
    expect(stripQuestionForm('什么时候发货')).toBe('什么时候发货');
    expect(stripQuestionForm('NS-X2-BLK-M 有货吗')).toBe('ns-x2-blk-m 有货');
  });

  it('returns the normalised query when only the question form was there', () => {
    expect(stripQuestionForm('怎么办？')).toBe('怎么办?');
  });
});
