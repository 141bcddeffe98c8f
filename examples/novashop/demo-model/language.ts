/**
 * Which language the demo answers in: the shopper's. The web page offers English (`?lang=en` or the
 * language switch) but the server is not told the page's locale, and a shopper may write either way
 * on either page, so the question decides: no Chinese character and some English words → English.
 * A mixed question (「Apple Watch 能退吗」) has Chinese in it and is answered in Chinese.
 */
export type Language = 'zh' | 'en';

export function languageOf(question: string): Language {
  if (/\p{Script=Han}/u.test(question)) return 'zh';
  return /[A-Za-z]{2,}/.test(question) ? 'en' : 'zh';
}

/** The Chinese or the English wording, as the answer's language. */
export function inLanguage(language: Language, chinese: string, english: string): string {
  return language === 'en' ? english : chinese;
}

/** `（来源：a；b）` or ` (source: a; b)`: the web page links both spellings (`link-citations.ts`). */
export function citationNote(language: Language, citations: readonly string[]): string {
  if (citations.length === 0) return '';
  return language === 'en' ? ` (source: ${citations.join('; ')})` : `（来源：${citations.join('；')}）`;
}
