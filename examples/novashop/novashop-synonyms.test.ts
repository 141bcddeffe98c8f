import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  buildSynonymIndex,
  canonicalTerm as canonicalTermIn,
  normalizeText,
  parseSynonymTable,
  STOP_WORDS,
} from '../../src/retrieval/text/index.ts';
import { createNovaShopAnalyzer, NOVASHOP_SYNONYMS_PATH } from './test-support/novashop-knowledge.ts';

// NovaShop's own table (synonyms.txt beside this file) merged into the general glossary.
const synonymIndex = () => createNovaShopAnalyzer().synonyms;
const synonymGroups = () => parseSynonymTable(readFileSync(NOVASHOP_SYNONYMS_PATH, 'utf8'));
const canonicalTerm = (token: string) => canonicalTermIn(token, synonymIndex());

describe('the NovaShop synonym table', () => {
  it('is sound: one group per form, no canonical term used as a form, every (+term) a canonical', () => {
    expect(synonymIndex().problems).toEqual([]);
  });

  it('stays broad (hundreds of groups, thousands of forms)', () => {
    const index = synonymIndex();
    expect(index.groupCount).toBeGreaterThanOrEqual(250);
    expect(index.formCount).toBeGreaterThanOrEqual(2500);
    expect(index.englishPhrases.size).toBeGreaterThan(300);
  });

  it('covers every area of a shop help centre', () => {
    const canonicals = new Set(synonymGroups().map((group) => group.canonical));
    for (const term of [
      '账号',
      '登录',
      '付款',
      '发货',
      '物流',
      '退货',
      '退款',
      '换货',
      '售后',
      '保修',
      '质量问题',
      '发票',
      '积分',
      '优惠券',
      '价格保护',
      '订单',
      '取消订单',
      '修改地址',
      '尺码',
      '会员',
      '客服',
    ]) {
      expect(canonicals, term).toContain(term);
    }
  });

  it('lists no stop word as a surface form or canonical term', () => {
    const { canonicalOf } = synonymIndex();
    const clashes = [...STOP_WORDS].filter((word) => canonicalOf.has(normalizeText(word)));
    expect(clashes).toEqual([]);
  });

  it('writes every canonical term in its normal form', () => {
    for (const group of synonymGroups()) expect(normalizeText(group.canonical)).toBe(group.canonical);
  });
});

describe('canonicalTerm', () => {
  it.each([
    ['退', '退货'],
    ['退掉', '退货'],
    ['寄回去', '退货'],
    ['不想要了', '不想要'],
    ['日', '天'],
    ['自然日', '天'],
    ['降价了', '价格保护'],
    ['保价', '价格保护'],
    ['差价', '价格保护'],
    ['坏了', '质量问题'],
    ['有瑕疵', '质量问题'],
    ['包修', '保修'],
    ['维修', '保修'],
    ['修', '保修'],
    ['寄出', '发货'],
    ['出库', '发货'],
    ['码数', '尺码'],
    ['尺寸', '尺码'],
    ['账户', '账号'],
    ['没', '未'],
  ])('%s → %s', (form, canonical) => {
    expect(canonicalTerm(form)).toBe(canonical);
  });

  it('maps a canonical term to itself and an unknown token to nothing', () => {
    expect(canonicalTerm('退货')).toBe('退货');
    expect(canonicalTerm('日期')).toBeUndefined();
    expect(canonicalTerm('novatrail')).toBeUndefined();
  });

  it.each([
    ['return', '退货'],
    ['returns', '退货'],
    ['refund', '退款'],
    ['exchange', '换货'],
    ['shipping', '配送'],
    ['delivery', '配送'],
    ['invoice', '发票'],
    ['warranty', '保修'],
    ['size', '尺码'],
    ['coupon', '优惠券'],
    ['points', '积分'],
    ['cancel', '取消订单'],
    ['address', '地址'],
    ['order', '订单'],
    ['damaged', '破损'],
    ['price protection', '价格保护'],
    ['days', '天'],
    ['shoes', '鞋'],
  ])('English %s → %s', (word, canonical) => {
    const index = synonymIndex();
    expect(canonicalTerm(word) ?? index.englishPhrases.get(word)).toBe(canonical);
  });

  it('finds English plurals by their singular', () => {
    expect(canonicalTerm('coupons')).toBe('优惠券');
    expect(canonicalTerm('policies')).toBe('政策');
    expect(canonicalTerm('boxes')).toBe('包装');
  });
});

describe('parseSynonymTable and buildSynonymIndex', () => {
  it('parses canonical terms, implied terms and whole-token-only forms', () => {
    const [group] = parseSynonymTable('# comment\n\n破损 (+质量问题 +售后) = 损坏 | !碎 | damaged goods\n');
    expect(group).toEqual({
      canonical: '破损',
      also: ['质量问题', '售后'],
      forms: [
        { text: '损坏', tokenOnly: false },
        { text: '碎', tokenOnly: true },
        { text: 'damaged goods', tokenOnly: false },
      ],
    });
  });

  it('throws on a malformed line', () => {
    expect(() => parseSynonymTable('退货 退 退掉')).toThrow(/line 1/);
  });

  it('reports a form claimed by two groups and a canonical used as a form', () => {
    const index = buildSynonymIndex(
      parseSynonymTable('退货 = 退 | 寄回\n退款 = 退 | 退钱\n换货 = 换 | 退货\n售后 (+保修) = 售后服务'),
    );
    expect(index.problems).toHaveLength(3);
    expect(index.problems.join('\n')).toMatch(/退/);
    expect(index.canonicalOf.get('寄回')).toBe('退货');
  });

  it('normalises forms like any text (Traditional, numerals)', () => {
    const index = buildSynonymIndex(parseSynonymTable('退货 = 退貨 | 七天無理由'));
    expect(index.canonicalOf.get('退货')).toBe('退货');
    expect(index.canonicalOf.get('7天无理由')).toBe('退货');
  });

  it('keeps single characters and !-forms out of running-text replacement', () => {
    const index = buildSynonymIndex(parseSynonymTable('天 = 日 | !天内 | 自然日'));
    expect([...index.phrases.keys()]).toEqual(['自然日']);
    expect(index.canonicalOf.get('天内')).toBe('天');
  });
});
