import { createRequire } from 'node:module';
import { REGIONAL_WORDS } from './regional-words.ts';

/**
 * Character-level normalisation for matching, applied identically to documents and queries:
 *
 * 1. Unicode NFKC: full-width ASCII letters, digits and punctuation become half-width (ＮＳ－Ｘ２ →
 *    NS-X2, ？ → ?), the ideographic space becomes a space, compatibility ideographs fold.
 * 2. Case folding (lower case).
 * 3. Traditional → Simplified with OpenCC (`twp` → `cn`: Taiwan phrases too, 軟體 → 软件, 影片 →
 *    视频), then the regional words OpenCC leaves alone (信箱 → 邮箱, 帳戶 → 账户, 保固 → 保修; see
 *    {@link REGIONAL_WORDS}).
 * 4. Dash variants between letters or digits become `-`, so ns‐x2–blk-m is ns-x2-blk-m; curly
 *    apostrophes become `'` (don’t → don't).
 * 5. Chinese numerals that express numbers become Arabic digits (七天 → 7天, 一百二十 → 120,
 *    第三条 → 第3条, 二〇二六 → 2026, 百分之十 → 10%), but words in which a numeral is lexical keep it
 *    (一起, 一下, 一般, 统一, 唯一, 一样, 万一, 十分, 三包, 二手, 周一 …; see {@link NUMERAL_WORDS}).
 * 6. Times of day become clock times, as policies write them: 晚上九点 → 21:00, 早上8点半 → 8:30,
 *    下午3点15分 → 15:15 (a word for the evening or afternoon moves an hour under 12 by twelve).
 * 7. Whitespace runs collapse to one space; leading and trailing whitespace go.
 *
 * Deterministic and locale-independent. The OpenCC converter is built once, on first use.
 */
export function normalizeText(text: string): string {
  let result = text.normalize('NFKC').toLowerCase();
  if (HAS_HAN.test(result)) {
    result = toSimplified(result);
    result = mainlandWords(result);
    result = chineseNumeralsToDigits(result);
    result = clockTimes(result);
  }
  return result
    .replace(DASH_BETWEEN_WORD_CHARACTERS, '-')
    .replace(APOSTROPHES, "'")
    .replace(/\s+/gu, ' ')
    .trim();
}

const HAS_HAN = /\p{Script=Han}/u;

/**
 * `N点` (after the numerals became digits) as a time of day: with the part of the day before it, or
 * its half or minutes, or a word of time after it (前, 后, 以后, 之前, 到, 至); so not 第3点 (a
 * point of a list), 两点需要注意 or 100点券.
 */
const CLOCK_TIME =
  /(?<!第)(早上|早晨|上午|中午|下午|傍晚|晚上|夜里|夜间|凌晨)?\s?(\d{1,2})\s?点(?:\s?(半)|\s?(\d{1,2})\s?分)?(?=([前后以之到至~\-–]|\s?-)?)/gu;
const AFTERNOON = new Set(['中午', '下午', '傍晚', '晚上', '夜里', '夜间']);

function clockTimes(text: string): string {
  return text.replace(
    CLOCK_TIME,
    (
      match,
      period: string | undefined,
      hourText: string,
      half: string | undefined,
      minutes: string | undefined,
      ...rest: unknown[]
    ) => {
      const timeWordAfter = (rest[0] ?? '') !== '';
      if (period === undefined && half === undefined && minutes === undefined && !timeWordAfter) return match;
      let hour = Number(hourText);
      const minute = half !== undefined ? 30 : minutes !== undefined ? Number(minutes) : 0;
      if (hour > 24 || minute > 59) return match;
      // 中午12点 is noon and 晚上12点 midnight's eve: only hours under 12 move.
      if (period !== undefined && AFTERNOON.has(period) && hour < 12) hour += 12;
      return `${hour}:${String(minute).padStart(2, '0')}`;
    },
  );
}
const APOSTROPHES = /[‘’‛′]/g;
const DASH_BETWEEN_WORD_CHARACTERS = /(?<=[\p{L}\p{N}])[‐‑‒–—―−](?=[\p{L}\p{N}])/gu;

let converter: ((text: string) => string) | undefined;

/** Traditional (Taiwan usage, phrase-level) → Simplified (mainland). */
export function toSimplified(text: string): string {
  converter ??= loadOpenCc().Converter({ from: 'twp', to: 'cn' });
  return converter(text);
}

// opencc-js ships typings, but under NodeNext their extensionless relative imports do not resolve
// (hidden by skipLibCheck) and ConverterFunction degrades to any: hence a type of our own.
interface OpenCc {
  Converter(options: { from: 'twp'; to: 'cn' }): (text: string) => string;
}

/**
 * opencc-js is an optional peer, with the rest of the Chinese text analysis: loaded (its CommonJS
 * build, so normalising stays synchronous) on the first text normalised, which only a knowledge base
 * or the retrieval tools do.
 */
function loadOpenCc(): OpenCc {
  try {
    return createRequire(import.meta.url)('opencc-js') as OpenCc;
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND' ||
      !String(error).includes("'opencc-js'")
    )
      throw error;
    throw new Error(
      'text analysis for knowledge bases needs the optional package opencc-js: install it with `npm install opencc-js @node-rs/jieba pinyin-pro`',
      { cause: error },
    );
  }
}

const REGIONAL_PATTERN = new RegExp(
  Object.keys(REGIONAL_WORDS)
    .sort((a, b) => b.length - a.length)
    .join('|'),
  'g',
);

/** Taiwan / Hong Kong words → the mainland word, after OpenCC's conversion. */
function mainlandWords(text: string): string {
  return text.replace(REGIONAL_PATTERN, (word) => REGIONAL_WORDS[word] ?? word);
}

const DIGIT_VALUES: Readonly<Record<string, number>> = {
  零: 0,
  〇: 0,
  一: 1,
  二: 2,
  两: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
};
const SMALL_UNITS: Readonly<Record<string, number>> = { 十: 10, 百: 100, 千: 1000 };
const LARGE_UNITS: Readonly<Record<string, number>> = { 万: 10_000, 亿: 100_000_000 };
const NUMERAL_CHARACTERS: ReadonlySet<string> = new Set('零〇一二两三四五六七八九十百千万亿');
const ANY_NUMERAL = /[零〇一二两三四五六七八九十百千万亿]/;

/**
 * Words in which a numeral character is part of the vocabulary, not a number. Their characters are
 * never converted. Keep it to words that a context rule would otherwise get wrong (a numeral followed
 * by a measure word, or two numerals in a row) plus the common 一-words, so the rule is visible here.
 */
export const NUMERAL_WORDS: readonly string[] = [
  // 一 as "together / a bit / same / unify …", not the number one.
  '一起',
  '一下',
  '一下子',
  '一般',
  '一般般',
  '统一',
  '唯一',
  '一样',
  '一模一样',
  '万一',
  '一直',
  '一定',
  '一些',
  '一切',
  '一旦',
  '一致',
  '一律',
  '一并',
  '一同',
  '一共',
  '一点',
  '一点点',
  '一点儿',
  '一会',
  '一会儿',
  '一边',
  '一方面',
  '一次性',
  '一口价',
  '一条龙',
  '一手',
  '一流',
  '一向',
  '一再',
  '一度',
  '一体',
  '一体机',
  '一键',
  '一站式',
  '一番',
  '一阵',
  '一带',
  '一路',
  '一对一',
  '一一',
  '同一',
  '之一',
  '专一',
  '单一',
  '均一',
  '不一',
  // Other numerals used as words.
  '二手',
  '二维码',
  '十分',
  '十足',
  '三包',
  '三星',
  '四季',
  '五金',
  '八卦',
  '零件',
  '零部件',
  '零钱',
  '零食',
  '零售',
  '零碎',
  '千克',
  '千米',
  '千万',
  '万万',
  '百货',
  '百搭',
  // Weekdays stay words (周一 is Monday, not "week 1"); 星期天/星期日 contain no numeral.
  ...['一', '二', '三', '四', '五', '六'].flatMap((day) => [`周${day}`, `星期${day}`, `礼拜${day}`]),
];

/**
 * What may follow a lone numeral for it to count as a number: measure words and units. A lone
 * numeral elsewhere (一起 not listed, 三思, 五一) stays a character.
 */
const UNIT_AFTER =
  /^(?:个|件|双|条|次|天|日|年|月|周|星期|礼拜|元|块|角|分|秒|小时|钟头|号|位|台|张|套|只|瓶|盒|包|单|笔|期|份|项|家|款|种|层|楼|折|倍|斤|克|公斤|千克|米|厘米|毫米|寸|码|岁|顿|遍|趟|站|级|类|批|箱|袋|支|本|部|辆|间|处|页|章|节|段|句|字|人|名|点|成|季|轮|代|把|根|片|颗|粒|对|副|组|道|声|步|样|色)/;

let wordsByNumeral: Map<string, (readonly [word: string, offset: number])[]> | undefined;

/**
 * The protected word that covers `index`, as [start, end), or undefined. Words that would start before
 * `notBefore` (inside the previous protected word) do not count: 唯一一次 is 唯一 + 1次.
 */
function protectedSpan(
  text: string,
  index: number,
  notBefore: number,
): readonly [number, number] | undefined {
  if (wordsByNumeral === undefined) {
    wordsByNumeral = new Map();
    const longestFirst = [...NUMERAL_WORDS].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
    for (const word of longestFirst) {
      for (let offset = 0; offset < word.length; offset += 1) {
        const character = word[offset] ?? '';
        if (!NUMERAL_CHARACTERS.has(character)) continue;
        const list = wordsByNumeral.get(character) ?? [];
        list.push([word, offset]);
        wordsByNumeral.set(character, list);
      }
    }
  }
  // Leftmost, then longest: in 唯一一次 the first 一 belongs to 唯一, not to 一一.
  let best: [number, number] | undefined;
  for (const [word, offset] of wordsByNumeral.get(text[index] ?? '') ?? []) {
    const start = index - offset;
    if (start < notBefore || (best !== undefined && start >= best[0]) || !text.startsWith(word, start))
      continue;
    best = [start, start + word.length];
  }
  return best;
}

/**
 * Parses a run of Chinese numerals with units (十五, 一百二十, 两万三千, 一百零五, 一万五, 三千五), or
 * returns undefined when the run is not a well-formed number (三四十, 一五一十, 千万).
 */
export function parseChineseNumber(run: string): number | undefined {
  let total = 0;
  let section = 0;
  let digit: number | undefined;
  let afterZero = false;
  let lastSmallUnit = Number.POSITIVE_INFINITY;
  let lastLargeUnit = Number.POSITIVE_INFINITY;
  let previousUnit = 0;
  let sawDigit = false;
  for (const character of run) {
    const digitValue = DIGIT_VALUES[character];
    if (digitValue !== undefined) {
      if (digit !== undefined && digit !== 0) return undefined;
      if (digitValue === 0) afterZero = true;
      digit = digitValue;
      sawDigit = true;
      continue;
    }
    const small = SMALL_UNITS[character];
    if (small !== undefined) {
      if (small >= lastSmallUnit) return undefined;
      const multiplier = digit ?? (small === 10 && section === 0 && total === 0 ? 1 : undefined);
      if (multiplier === undefined || multiplier === 0) return undefined;
      section += multiplier * small;
      lastSmallUnit = small;
      previousUnit = small;
      digit = undefined;
      afterZero = false;
      continue;
    }
    const large = LARGE_UNITS[character];
    if (large === undefined || large >= lastLargeUnit) return undefined;
    const value = section + (digit ?? 0);
    if (value === 0) return undefined;
    total += value * large;
    section = 0;
    digit = undefined;
    afterZero = false;
    lastSmallUnit = Number.POSITIVE_INFINITY;
    lastLargeUnit = large;
    previousUnit = large;
  }
  if (!sawDigit && !run.startsWith('十')) return undefined;
  if (digit !== undefined) {
    // 一百二 is 120 and 一万五 is 15000: a final digit right after a unit counts in the next unit down.
    const abbreviated = !afterZero && previousUnit > 10;
    section += abbreviated ? digit * (previousUnit / 10) : digit;
  }
  return total + section;
}

function digitsOf(run: string): string {
  let digits = '';
  for (const character of run) digits += String(DIGIT_VALUES[character] ?? '');
  return digits;
}

function convertRun(run: string, before: string, after: string): string | undefined {
  const hasUnit = /[十百千万亿]/.test(run);
  if (run.length === 1) {
    const value = DIGIT_VALUES[run] ?? (run === '十' ? 10 : undefined);
    if (value === undefined) return undefined;
    return before.endsWith('第') || UNIT_AFTER.test(after) ? String(value) : undefined;
  }
  if (hasUnit) {
    const value = parseChineseNumber(run);
    return value === undefined ? undefined : String(value);
  }
  // Digit by digit: years and codes (二〇二六, 一二三), ranges (三四天 → 3-4天), discounts (九五折).
  if (run.length >= 3 || /[零〇]/.test(run)) return digitsOf(run);
  const first = DIGIT_VALUES[run[0] ?? ''];
  const second = DIGIT_VALUES[run[1] ?? ''];
  if (first === undefined || second === undefined) return undefined;
  if (after.startsWith('折')) return `${first}${second}`;
  if (second === first + 1 && UNIT_AFTER.test(after)) return `${first}-${second}`;
  return undefined;
}

const PERCENT = /百分之([零〇一二两三四五六七八九十百]+)/g;

/**
 * Chinese numerals → Arabic digits where they express numbers. Expects simplified, lower-cased
 * text (so 兩 is already 两). Exported for tests; {@link normalizeText} calls it.
 */
export function chineseNumeralsToDigits(text: string): string {
  if (!ANY_NUMERAL.test(text)) return text;
  const source = text.includes('百分之') ? text.replace(PERCENT, percentOf) : text;
  let output = '';
  let copiedUpTo = 0;
  let index = 0;
  // Characters before `protectedUntil` belong to a word such as 统一 and are never converted.
  let protectedUntil = 0;
  while (index < source.length) {
    if (!NUMERAL_CHARACTERS.has(source[index] ?? '') || index < protectedUntil) {
      index += 1;
      continue;
    }
    const span = protectedSpan(source, index, protectedUntil);
    if (span !== undefined) {
      protectedUntil = span[1];
      index += 1;
      continue;
    }
    let end = index + 1;
    while (end < source.length && NUMERAL_CHARACTERS.has(source[end] ?? '')) {
      const inner = protectedSpan(source, end, protectedUntil);
      if (inner !== undefined) {
        protectedUntil = inner[1];
        end = Math.max(index + 1, inner[0]);
        break;
      }
      end += 1;
    }
    const run = source.slice(index, end);
    const converted = convertRun(
      run,
      source.slice(Math.max(0, index - 1), index),
      source.slice(end, end + 3),
    );
    if (converted !== undefined) {
      output += source.slice(copiedUpTo, index) + converted;
      copiedUpTo = end;
    }
    index = end;
  }
  return copiedUpTo === 0 ? source : output + source.slice(copiedUpTo);
}

function percentOf(whole: string, run: string): string {
  const value = parseChineseNumber(run);
  return value === undefined ? whole : `${value}%`;
}
