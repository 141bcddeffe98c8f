import { describe, expect, it } from 'vitest';
import {
  chineseNumeralsToDigits,
  NUMERAL_WORDS,
  normalizeText,
  parseChineseNumber,
} from './normalize-text.ts';

describe('normalizeText: width, case, whitespace', () => {
  it('folds full-width letters, digits and punctuation to half-width and lower case', () => {
    expect(normalizeText('ＮＳ－Ｘ２－ＢＬＫ－Ｍ')).toBe('ns-x2-blk-m');
    expect(normalizeText('NS-X2-BLK-M')).toBe('ns-x2-blk-m');
    expect(normalizeText('能退吗？！')).toBe('能退吗?!');
  });

  it('folds dash variants between letters or digits and curly apostrophes', () => {
    expect(normalizeText('NS‐X2–BLK—M')).toBe('ns-x2-blk-m');
    expect(normalizeText('doesn’t fit')).toBe("doesn't fit");
  });

  it('collapses whitespace, including the ideographic space, and trims', () => {
    expect(normalizeText('  签收后\u3000\u3000 7 个\t自然日\n内 ')).toBe('签收后 7 个 自然日 内');
    expect(normalizeText(' \u3000 ')).toBe('');
  });
});

describe('normalizeText: Traditional → Simplified', () => {
  it('converts characters', () => {
    expect(normalizeText('這雙鞋七天內能退嗎？')).toBe(normalizeText('这双鞋七天内能退吗？'));
    expect(normalizeText('退貨運費發票')).toBe('退货运费发票');
  });

  it('converts Taiwan phrases, not only characters', () => {
    expect(normalizeText('軟體與滑鼠')).toBe('软件与鼠标');
  });

  it('leaves Simplified text alone', () => {
    const simplified = 'novatrail x2 签收后 7 个自然日内可申请退货;商品需保持完好且配件齐全。';
    expect(normalizeText(simplified)).toBe(simplified);
  });
});

describe('normalizeText: Chinese numerals → digits', () => {
  it.each([
    ['七天', '7天'],
    ['十五天', '15天'],
    ['三十天', '30天'],
    ['两年', '2年'],
    ['兩年', '2年'],
    ['一百二十', '120'],
    ['第三条', '第3条'],
    ['第十五条', '第15条'],
    ['二〇二六', '2026'],
    ['二零二六年', '2026年'],
    ['一百零五元', '105元'],
    ['一百二', '120'],
    ['一万五', '15000'],
    ['两万三千', '23000'],
    ['十万', '100000'],
    ['百分之十', '10%'],
    ['三四天', '3-4天'],
    ['一两天', '1-2天'],
    ['九五折', '95折'],
    ['买了一件', '买了1件'],
    ['双十一', '双11'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeText(input)).toBe(expected);
  });

  it.each([
    '一起',
    '一下',
    '一般',
    '统一',
    '唯一',
    '一样',
    '万一',
    '一直',
    '一点',
    '一次性',
    '十分',
    '三包',
    '二手',
    '零件',
    '周一到周五',
    '千万别',
  ])('keeps the word %s', (word) => {
    expect(normalizeText(word)).toBe(word);
  });

  it('keeps exception words inside sentences while converting the numbers around them', () => {
    expect(normalizeText('一起买两双七天内能退吗')).toBe('一起买2双7天内能退吗');
    expect(normalizeText('统一个标准，唯一一次')).toBe('统一个标准,唯一1次');
    expect(normalizeText('一样的鞋子买一样')).toBe('一样的鞋子买一样');
  });

  it('leaves a lone numeral that is not followed by a unit or preceded by 第', () => {
    expect(normalizeText('三思而后行')).toBe('三思而后行');
    expect(normalizeText('五一')).toBe('五一');
  });

  it('lists every exception word in its own normal form', () => {
    for (const word of NUMERAL_WORDS) expect(chineseNumeralsToDigits(word)).toBe(word);
  });
});

describe('parseChineseNumber', () => {
  it('parses well-formed numbers', () => {
    expect(parseChineseNumber('七')).toBe(7);
    expect(parseChineseNumber('十')).toBe(10);
    expect(parseChineseNumber('二十一')).toBe(21);
    expect(parseChineseNumber('一千零一')).toBe(1001);
    expect(parseChineseNumber('一万零五十')).toBe(10050);
  });

  it('refuses runs that are not one number', () => {
    expect(parseChineseNumber('三四十')).toBeUndefined();
    expect(parseChineseNumber('一五一十')).toBeUndefined();
    expect(parseChineseNumber('千万')).toBeUndefined();
    expect(parseChineseNumber('百十')).toBeUndefined();
  });
});

describe('normalizeText: stability', () => {
  const samples = [
    '這雙鞋七天內能退嗎？',
    'ＮＳ－Ｘ２－ＢＬＫ－Ｍ 一起 十五天',
    'NovaTrail X2 签收后 7 个自然日内可申请退货；商品需保持完好且配件齐全。',
    '二〇二六年第三条：百分之十',
  ];

  it('is idempotent on shop text', () => {
    for (const sample of samples) expect(normalizeText(normalizeText(sample))).toBe(normalizeText(sample));
  });

  it('is deterministic', () => {
    for (const sample of samples) expect(normalizeText(sample)).toBe(normalizeText(sample));
  });
});

describe('normalizeText: regional words', () => {
  it.each([
    ['電子信箱', '电子邮箱'],
    ['帳戶', '账户'],
    ['軟體', '软件'],
    ['影片', '视频'],
    ['保固一年', '保修1年'],
    ['免運費', '包邮'],
  ])('%s → %s', (regional, mainland) => {
    expect(normalizeText(regional)).toBe(mainland);
  });
});

describe('normalizeText: times of day', () => {
  it.each([
    ['晚上九点以后还能送冻品吗', '21:00以后还能送冻品吗'],
    ['早上8点半', '8:30'],
    ['下午3点15分', '15:15'],
    ['9点前下单', '9:00前下单'],
    ['中午12点', '12:00'],
    ['晚上12点', '12:00'],
    ['21:00–22:00 夜间时段', '21:00-22:00 夜间时段'],
  ])('%s → %s', (text, normalized) => {
    expect(normalizeText(text)).toBe(normalized);
  });

  it.each([
    ['第三点建议', '第3点建议'],
    ['有两点需要注意', '有2点需要注意'],
    ['100点券', '100点券'],
    ['晚上30点', '晚上30点'],
  ])('leaves 点 that is not a time alone: %s → %s', (text, normalized) => {
    expect(normalizeText(text)).toBe(normalized);
  });
});
