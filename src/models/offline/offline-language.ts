/**
 * Which language the offline model answers in: the agent's, unless the user clearly writes in the
 * other one. A message with a Chinese character is Chinese (「R-1001 能取消吗」 too); one with Latin
 * words and no Chinese is English; anything else (an id alone, digits, emoji) keeps the agent's.
 */
export type OfflineLanguage = 'zh-CN' | 'en';

export function answerLanguage(message: string, agentLanguage: OfflineLanguage): OfflineLanguage {
  if (/\p{Script=Han}/u.test(message)) return 'zh-CN';
  return /[A-Za-z]{2,}/.test(message) ? 'en' : agentLanguage;
}

/** The Chinese or the English wording, as the answer's language. */
export function say(language: OfflineLanguage, chinese: string, english: string): string {
  return language === 'en' ? english : chinese;
}

/**
 * `（来源：a；b）` or ` (source: a; b)`, the convention the examples' demo models write and the web page turns
 * into links (`src/react/markdown/link-citations.ts` recognises both spellings).
 */
export function citationNote(language: OfflineLanguage, citations: readonly string[]): string {
  if (citations.length === 0) return '';
  return language === 'en' ? ` (source: ${citations.join('; ')})` : `（来源：${citations.join('；')}）`;
}
