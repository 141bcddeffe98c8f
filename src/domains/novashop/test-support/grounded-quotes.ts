import { expect } from 'vitest';
import type { ModelDriver } from './model-driver.ts';

/**
 * Every quoted line `… text（来源：citation；…）` (the lead line after its colon, or a `- ` bullet) is
 * made of sentences of the passages some search returned under one of those citations, and no
 * citation is given twice in the answer.
 */
export function expectGroundedQuotes(model: ModelDriver, answer: string): void {
  const hits = model.messages.flatMap((message) => {
    if (message.role !== 'tool') return [];
    const value = JSON.parse(message.content) as {
      hits?: { text: string; context?: string; citation: string }[];
    };
    return value.hits ?? [];
  });
  const quotes = [
    ...answer.matchAll(/^(?:- |.*?写的：|.*?说的：|.*?say: )(.+?)(?:（来源：| \(source: )(.+?)[）)]$/gm),
  ];
  expect(quotes.length).toBeGreaterThan(0);
  const cited = quotes.flatMap(([, , citations = '']) => citations.split(/[；;] ?/));
  expect(new Set(cited).size, `a citation given twice: ${cited.join(', ')}`).toBe(cited.length);
  for (const [, text = '', citations = ''] of quotes) {
    const sources = hits.filter((hit) => citations.split(/[；;] ?/).includes(hit.citation));
    for (const sentence of text.split(/(?<=[。！？])/)) {
      const words = sentence.slice(0, -1);
      const found = sources.some((hit) => `${hit.context ?? ''}${hit.text}`.includes(words));
      expect(found, `quote not in the search results: ${sentence} (${citations})`).toBe(true);
    }
  }
}
