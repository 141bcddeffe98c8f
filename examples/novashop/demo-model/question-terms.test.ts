import { describe, expect, it } from 'vitest';
import { answerScore, normaliseText, questionProfile, termProfile } from './question-terms.ts';

describe('normaliseText', () => {
  it('spells a quantity one way', () => {
    expect(normaliseText('七天无理由')).toBe('7天无理由');
    expect(normaliseText('签收后 7 个自然日内')).toBe('签收后7天内');
    expect(normaliseText('十五天')).toBe('15天');
    expect(normaliseText('after 7 days')).toBe('after7天');
    expect(normaliseText('99 块')).toBe('99元');
  });
});

describe('questionProfile', () => {
  it('leaves the question forms out and keeps what the question is about', () => {
    const profile = questionProfile('退货政策是怎样的？七天无理由吗？');
    expect([...profile.terms]).toEqual(['退货', '货政', '政策', '天无', '无理', '理由', '7']);
    expect([...profile.quantities]).toEqual(['7天']);
  });

  it('hears what kind of quantity is asked for', () => {
    expect(questionProfile('下单后多久发货').asks).toBe('time');
    expect(questionProfile('满多少包邮').asks).toBe('money');
    expect(questionProfile('How long does shipping take?').asks).toBe('time');
    expect(questionProfile('能退吗').asks).toBeUndefined();
  });
});

describe('answerScore', () => {
  const question = questionProfile('退货政策是怎样的？七天无理由吗？');

  it('ranks the clause that states the 7-day rule above the exceptions list', () => {
    const rule = answerScore(
      question,
      termProfile('除本政策列明的例外商品外，商品签收后 7 个自然日内支持无理由退货。'),
    );
    const exception = answerScore(
      question,
      termProfile('特价清仓商品，商品页会标注「清仓特价，不支持无理由退货」。'),
    );
    expect(rule).toBeGreaterThan(exception);
  });

  it('gives nothing for a clause that shares nothing, even with a quantity asked for', () => {
    expect(answerScore(questionProfile('多久发货'), termProfile('礼品卡 3 天内有效。'))).toBe(0);
  });
});
