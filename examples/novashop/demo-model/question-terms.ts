import { parseChineseNumber } from 'runstream/retrieval';

/**
 * What a question asks about, as comparable units, so the demo can tell which quoted clause answers
 * it: the content words as character bigrams (Chinese has no spaces; bigrams match 无理由 in
 * 支持无理由退货 without a dictionary) and the quantities (7 天, 99 元), which decide between clauses
 * that share the words (7 天无理由 vs 15 天质量问题).
 */

export interface TermProfile {
  /** Han character bigrams (a lone character stands for itself), Latin words and bare numbers. */
  terms: Set<string>;
  /** Numbers with their unit, normalised: `7天` (7 个自然日, 七天, 7 days), `99元`, `48小时`. */
  quantities: Set<string>;
  /** What kind of quantity the question asks for (多久 → time, 满多少 → money), if any. */
  asks?: 'time' | 'money';
}

const ASKS_TIME = /多久|几天|多长时间|多少天|几个工作日|什么时候|how long|how many days|how soon|when will/i;
const ASKS_MONEY = /多少钱|满多少|运费怎么算|收多少|how much|what does .* cost/i;
const TIME_UNITS = /^\d+(天|工作日|小时|月|年|周)$/;

/**
 * Question forms, not content: 是怎样的、吗、是不是、能不能 … Longer forms first, so 怎么样 goes
 * before 怎么. They are cut out of the question, leaving the words it is about (退货政策, 7天无理由).
 */
const QUESTION_FORMS =
  /是怎样的|是什么样的|怎么样|怎样|怎么|如何|什么|多少钱|多少|多久|多长时间|几天|哪些|哪个|哪里|是不是|是否|能不能|可不可以|可以吗|有没有|请问|想问一下|问一下|我想知道|我想|帮我|一下|吗|呢|吧|啊|呀|么|我的|我|你们|你|的|了|是|都|会|要|还/g;

const UNIT = '(?:个)?(自然日|工作日|天|日|小时|元|块|个月|月|年|周|次|件)';

/**
 * One spelling for one meaning: full-width digits and letters, 七天 → 7天, 7 个自然日 → 7天,
 * 99 块 → 99元, 7 days → 7天, spaces out. Clauses and questions go through the same function, so
 * whatever it gets wrong it gets wrong on both sides.
 */
export function normaliseText(text: string): string {
  let normal = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/(\d+)\s*(?:calendar\s+)?days?\b/g, '$1天')
    .replace(/(\d+)\s*business\s+days?\b/g, '$1工作日')
    .replace(/(\d+)\s*hours?\b/g, '$1小时')
    .replace(/(\d+)\s*(?:yuan|rmb)\b/g, '$1元')
    .replace(/[¥￥]\s*(\d+)/g, '$1元')
    .replace(/\bseven\s+days?\b/g, '7天')
    .replace(/\s+/g, '');
  normal = normal.replace(
    new RegExp(`([零一二两三四五六七八九十]{1,3})(?=${UNIT})`, 'g'),
    (numeral: string) => {
      const value = parseChineseNumber(numeral);
      return value === undefined ? numeral : String(value);
    },
  );
  return normal.replace(new RegExp(`(\\d+)${UNIT}`, 'g'), (_match, digits: string, unit: string) => {
    return `${digits}${UNIT_OF[unit] ?? unit}`;
  });
}

const UNIT_OF: Record<string, string> = { 自然日: '天', 日: '天', 块: '元', 个月: '月' };

/** The terms and quantities of a clause, as written. */
export function termProfile(text: string): TermProfile {
  return profileOf(normaliseText(text));
}

/** The terms and quantities of a question, its question forms (怎样、吗 …) left out. */
export function questionProfile(question: string): TermProfile {
  const profile = profileOf(normaliseText(question).replace(QUESTION_FORMS, ' '));
  if (ASKS_TIME.test(question)) profile.asks = 'time';
  else if (ASKS_MONEY.test(question)) profile.asks = 'money';
  return profile;
}

function profileOf(normal: string): TermProfile {
  const quantities = new Set<string>();
  for (const match of normal.matchAll(/(\d+)(天|工作日|小时|元|月|年|周|次|件)/g)) quantities.add(match[0]);
  const terms = new Set<string>();
  for (const run of normal.match(/\p{Script=Han}+/gu) ?? []) {
    const characters = Array.from(run);
    if (characters.length === 1) terms.add(run);
    for (let index = 0; index + 1 < characters.length; index += 1) {
      terms.add(`${characters[index]}${characters[index + 1]}`);
    }
  }
  for (const word of normal.match(/[a-z0-9]+/g) ?? [])
    if (word.length >= 2 || /\d/.test(word)) terms.add(word);
  return { terms, quantities };
}

/**
 * How well a clause answers the question: one point per shared term, three per shared quantity
 * (七天无理由吗 is answered by the clause that says 7 个自然日, not by the list of exceptions that
 * only says 无理由), and two for a clause that gives the kind of quantity asked for (多久发货 is
 * answered by 48 小时内发货, not by 以商品页标注为准). Only a clause that shares a term or a
 * quantity with the question scores at all: a number alone answers nothing.
 */
export function answerScore(question: TermProfile, clause: TermProfile): number {
  let score = 0;
  for (const term of question.terms) if (clause.terms.has(term)) score += 1;
  for (const quantity of question.quantities) if (clause.quantities.has(quantity)) score += 3;
  if (score === 0 || question.asks === undefined) return score;
  const quantities = [...clause.quantities];
  const gives =
    question.asks === 'time'
      ? quantities.some((quantity) => TIME_UNITS.test(quantity))
      : quantities.some((quantity) => quantity.endsWith('元'));
  return gives ? score + 2 : score;
}
