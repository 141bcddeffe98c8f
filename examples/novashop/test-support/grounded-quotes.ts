import { expect } from 'vitest';
import type { ModelDriver } from './model-driver.ts';

/**
 * Every quoted line `… text（来源：citation；…）` (the lead line after its colon, or a `- ` bullet) is
 * made of sentences some search returned at one of those citations (a hit's clause at its
 * `citation`, or a line of its passage at that line's `contextCitations` entry), and no citation is
 * given twice in the answer.
 */
export function expectGroundedQuotes(model: ModelDriver, answer: string): void {
  const hits = model.messages.flatMap((message) => {
    if (message.role !== 'tool') return [];
    const value = JSON.parse(message.content) as {
      hits?: { text: string; context?: string; citation: string; contextCitations?: string[] }[];
    };
    return value.hits ?? [];
  });
  // What the searches returned at each citation.
  const textAt = new Map<string, string[]>();
  const add = (citation: string, text: string) =>
    textAt.set(citation, [...(textAt.get(citation) ?? []), text]);
  for (const hit of hits) {
    add(hit.citation, hit.text);
    const lines = (hit.context ?? '').split('\n');
    for (const [index, line] of lines.entries()) add(hit.contextCitations?.[index] ?? hit.citation, line);
  }
  const quotes = [
    ...answer.matchAll(/^(?:- |.*?写的：|.*?说的：|.*?say: )(.+?)(?:（来源：| \(source: )(.+?)[）)]$/gm),
  ];
  expect(quotes.length).toBeGreaterThan(0);
  const cited = quotes.flatMap(([, , citations = '']) => citations.split(/[；;] ?/));
  expect(new Set(cited).size, `a citation given twice: ${cited.join(', ')}`).toBe(cited.length);
  for (const [, text = '', citations = ''] of quotes) {
    const sources = citations.split(/[；;] ?/).flatMap((citation) => textAt.get(citation) ?? []);
    for (const sentence of text.split(/(?<=[。！？])/)) {
      const words = sentence.slice(0, -1);
      const found = sources.some((source) => source.includes(words));
      expect(found, `quote not in the search results: ${sentence} (${citations})`).toBe(true);
    }
  }
}
