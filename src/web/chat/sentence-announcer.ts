import type { Block } from '../../protocol/index.ts';

/** Where a sentence may end: Chinese and Western full stops, question and exclamation marks, newlines. */
const SENTENCE_END = /[。！？!?；;\n]|\.(?=\s|$)/g;

/**
 * Turns streamed answer text into whole sentences for a screen reader's polite live region: reading
 * every 3-character delta aloud would be noise, and reading only the finished answer would leave a
 * listener waiting. Text that existed before `baseline()` (a restored conversation) is not read.
 */
export class SentenceAnnouncer {
  /** Characters of each answer block already announced. */
  readonly #announced = new Map<string, number>();

  /** Mark everything in `blocks` as already read (a page load or a conversation switch). */
  baseline(blocks: readonly Block[]): void {
    for (const block of blocks)
      if (block.kind === 'answer' || block.kind === 'error')
        this.#announced.set(block.blockId, block.text.length);
  }

  /** The new whole sentences of every answer and error block, in block order. */
  take(blocks: readonly Block[]): string[] {
    const sentences: string[] = [];
    for (const block of blocks) {
      if (block.kind !== 'answer' && block.kind !== 'error') continue;
      const from = this.#announced.get(block.blockId) ?? 0;
      const until = block.status === 'streaming' ? lastSentenceEnd(block.text, from) : block.text.length;
      if (until <= from) continue;
      const sentence = block.text.slice(from, until).trim();
      this.#announced.set(block.blockId, until);
      if (sentence !== '') sentences.push(sentence);
    }
    return sentences;
  }
}

function lastSentenceEnd(text: string, from: number): number {
  let end = from;
  SENTENCE_END.lastIndex = from;
  for (let match = SENTENCE_END.exec(text); match !== null; match = SENTENCE_END.exec(text))
    end = match.index + match[0].length;
  return end;
}
