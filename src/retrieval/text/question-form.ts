import { normalizeText } from './normalize-text.ts';

/**
 * The wording that makes a Chinese sentence a question (怎么 / 能不能 / 可以吗 / 吗 / 呢 …). It
 * says what the shopper is doing, asking, not what about, and no policy clause is written that way,
 * so in the n-gram lane it only dilutes the query vector (怎么, 么退, 吗 match FAQ questions about
 * anything). Removed from the query before the lexical lanes; documents are never stripped.
 *
 * Ordered longest first where one contains another (怎么样 before 怎么).
 */
const QUESTION_FORMS: readonly (readonly [RegExp, string])[] = [
  // Openers: asking politely.
  [/(?:麻烦)?(?:请问|我想问|想问|问一下|问下)(?:一下|下)?/g, ''],
  // A-not-A and modal questions: 能不能退 asks about 退. 有没有 can carry content (有没有货), so it
  // keeps 有 (a stop word of the keyword lane, and harmless next to the noun in the n-gram lane).
  [/能不能|可不可以|可以不可以|能否|可否|是否|是不是|会不会|要不要|需不需要|用不用|行不行/g, ''],
  [/有没有/g, '有'],
  // How / why.
  [/怎么样|怎么办|怎么弄|怎么整|咋整|咋办|咋弄|怎么|怎样|如何|为什么|为啥|咋/g, ''],
  // What, except 什么时候 (asks when: a time, which policies state).
  [/什么(?!时候)/g, ''],
  // Tags: 可以吗 / 行吗 / 好吗 / 对吗.
  [/(?:可以|行|好|对|是)吗/g, ''],
  // Sentence-final particles (吗 anywhere: it has no other use in shop text).
  [/吗/g, ''],
  [/[呢吧啊呀嘛哦么哈啦](?=[\s\p{P}\p{S}]|$)/gu, ''],
];

/**
 * {@link normalizeText} of a query with its question form removed, or the normalised query itself
 * when nothing else would remain (「怎么办？」 still searches for something).
 */
export function stripQuestionForm(query: string): string {
  const normalized = normalizeText(query);
  let stripped = normalized;
  for (const [pattern, replacement] of QUESTION_FORMS) stripped = stripped.replace(pattern, replacement);
  stripped = stripped.replace(/\s+/g, ' ').trim();
  return /[\p{L}\p{N}]/u.test(stripped) ? stripped : normalized;
}
