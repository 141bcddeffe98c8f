import { readingOf } from './text/pinyin-terms.ts';

const HAN_PAIR = /^\p{Script=Han}{2}$/u;
const HAN_CHARACTER = /^\p{Script=Han}$/u;
/** A replacement must be a head term of the corpus, not a pair that occurs by chance. */
const MINIMUM_REPLACEMENT_FREQUENCY = 3;
/** The character replaced must be (nearly) absent from the corpus: the shop never writes 火 or 秀. */
const MAXIMUM_TYPO_CHARACTER_FREQUENCY = 2;

/**
 * Corrects homophone typos in a query against the corpus' own vocabulary: a character pair the corpus
 * never contains (退火, 发漂, 运废) is replaced by the pair of the same toneless pinyin that the most
 * clauses contain (退货, 发票, 运费). Typing Chinese with a pinyin keyboard makes exactly this error,
 * and the corrected query then matches in every lexical lane at full weight.
 *
 * Conservative, because a wrong correction destroys a good query word (合并 → 和并, 期间 → 期见): the
 * character replaced must be one the corpus (nearly) never uses, the replacement a pair at least
 * {@link MINIMUM_REPLACEMENT_FREQUENCY} clauses hold, and a corrected pair is never corrected again.
 *
 * Built once per index from its character bigrams (a few thousand to a few hundred thousand); a query
 * costs one map lookup per character pair, nothing proportional to the corpus.
 */
export class HomophoneCorrector {
  /** pinyin bigram → [the most frequent corpus pair with it, its document frequency]. */
  readonly #best = new Map<string, readonly [string, number]>();
  readonly #known = new Set<string>();
  readonly #characterFrequency = new Map<string, number>();

  /** `grams`: the corpus' character n-grams (single characters and pairs are used) with their document frequencies. */
  constructor(grams: Iterable<readonly [string, number]>) {
    for (const [gram, frequency] of grams) {
      if (HAN_CHARACTER.test(gram)) {
        this.#characterFrequency.set(gram, frequency);
        continue;
      }
      if (!HAN_PAIR.test(gram)) continue;
      const pair = gram;
      this.#known.add(pair);
      if (frequency < MINIMUM_REPLACEMENT_FREQUENCY) continue;
      const key = pinyinKey(pair);
      const current = this.#best.get(key);
      if (current === undefined || frequency > current[1]) this.#best.set(key, [pair, frequency]);
    }
  }

  /** The text with each unknown Han pair that has a homophone in the corpus replaced by it. */
  correct(text: string): string {
    const characters = [...text];
    let changed = false;
    for (let index = 0; index + 1 < characters.length; index += 1) {
      const pair = `${characters[index]}${characters[index + 1]}`;
      if (!HAN_PAIR.test(pair) || this.#known.has(pair)) continue;
      const replacement = this.#best.get(pinyinKey(pair))?.[0];
      if (replacement === undefined) continue;
      const [first = '', second = ''] = [...replacement];
      const typos = [characters[index], characters[index + 1]].filter(
        (character, offset) => character !== (offset === 0 ? first : second),
      );
      const rare = typos.every(
        (character) =>
          (this.#characterFrequency.get(character ?? '') ?? 0) <= MAXIMUM_TYPO_CHARACTER_FREQUENCY,
      );
      if (!rare) continue;
      characters[index] = first;
      characters[index + 1] = second;
      changed = true;
      index += 1;
    }
    return changed ? characters.join('') : text;
  }
}

function pinyinKey(pair: string): string {
  let key = '';
  for (const character of pair) key += `${readingOf(character)} `;
  return key;
}
