import { isRecord } from './read-run.ts';
import { termsOf } from './text-terms.ts';

/**
 * The clauses of a `search_knowledge` result worth quoting, the most relevant to the question first.
 * Each hit brings its matched clause (`text`, cited at `citation`) and its passage (`context`, each
 * line cited at `contextCitations`, since the answer is often the next sentence). Every clause is
 * scored by the terms it shares with the question (a shared number counts three: 7 天 answers
 * 7 天无理由吗 more than 15 天 does), two more when the question asks how long or how much and the
 * clause gives a duration or a price. The matched clause of a hit may be quoted even when it shares
 * nothing, since the retriever found it for a reason; a neighbour only when it shares something;
 * headings never. Ties go to the retriever's order, then to the matched clause, then to the
 * passage's order. At most `max` clauses are quoted, those scoring less than half the best left
 * out, each once: the same clause found again (or said with more words) is quoted once, in its
 * fuller wording, with every citation that gives it; clauses of the same line share one citation.
 */

export interface EvidenceHit {
  text: string;
  context?: string;
  citation: string;
  contextCitations?: string[];
}

export interface Evidence {
  lowEvidence: boolean;
  hits: EvidenceHit[];
}

export interface QuotedLine {
  text: string;
  citations: string[];
}

/** The search result read without trusting its shape: hits without text are left out. */
export function evidenceIn(value: unknown): Evidence | undefined {
  if (!isRecord(value) || !Array.isArray(value.hits)) return undefined;
  const hits = value.hits.flatMap((hit): EvidenceHit[] => {
    if (!isRecord(hit) || typeof hit.text !== 'string' || hit.text.trim() === '') return [];
    const contextCitations = Array.isArray(hit.contextCitations)
      ? hit.contextCitations.filter((citation): citation is string => typeof citation === 'string')
      : undefined;
    return [
      {
        text: hit.text,
        ...(typeof hit.context === 'string' ? { context: hit.context } : {}),
        citation: typeof hit.citation === 'string' ? hit.citation : '',
        ...(contextCitations ? { contextCitations } : {}),
      },
    ];
  });
  return { lowEvidence: value.lowEvidence === true, hits };
}

interface Candidate {
  text: string;
  citations: string[];
  score: number;
  hitRank: number;
  matched: boolean;
  position: number;
}

export function quoteEvidence(hits: readonly EvidenceHit[], question: string, max = 3): QuotedLine[] {
  const asked: Question = { terms: termsOf(question), wants: wantsOf(question) };
  const candidates = hits
    .flatMap((hit, hitRank) => candidatesOf(hit, hitRank, asked))
    .sort(
      (left, right) =>
        right.score - left.score ||
        left.hitRank - right.hitRank ||
        Number(right.matched) - Number(left.matched) ||
        left.position - right.position,
    );
  const best = candidates[0]?.score ?? 0;
  const eligible =
    best === 0
      ? // Nothing shares a word with the question (another language, other words): the retriever's
        // own first finds, fewer of them.
        candidates.filter((candidate) => candidate.matched).slice(0, 2)
      : candidates.filter((candidate) => candidate.score >= Math.max(1, Math.ceil(best / 2)));
  const kept: Candidate[] = [];
  for (const candidate of eligible) {
    const same = kept.find((clause) => overlaps(clause.text, candidate.text));
    if (same === undefined) {
      if (kept.length < max) kept.push({ ...candidate, citations: [...candidate.citations] });
      continue;
    }
    // The same clause in more words: keep the fuller one, where the better-ranked one was, cited
    // first where its words are written.
    const [citation = ''] = candidate.citations;
    if (normal(candidate.text).length > normal(same.text).length) {
      same.text = candidate.text;
      same.citations = [citation, ...same.citations.filter((other) => other !== citation)];
    } else if (!same.citations.includes(citation)) {
      same.citations.push(citation);
    }
  }
  const lines: QuotedLine[] = [];
  const cited = new Set<string>();
  for (const clause of kept) {
    const [first = ''] = clause.citations;
    const line = lines.find((entry) => first !== '' && entry.citations[0] === first);
    const fresh = clause.citations.filter((citation) => citation !== '' && !cited.has(citation));
    for (const citation of fresh) cited.add(citation);
    if (line === undefined) {
      lines.push({ text: clause.text, citations: fresh });
    } else {
      line.text += /\p{Script=Han}/u.test(clause.text) ? clause.text : ` ${clause.text}`;
      line.citations.push(...fresh);
    }
  }
  return lines;
}

interface Question {
  terms: ReadonlySet<string>;
  wants: 'duration' | 'price' | undefined;
}

function wantsOf(question: string): Question['wants'] {
  if (
    /多久|多长时间|几天|多少天|几个月|几年|什么时候|\bhow long\b|\bhow many (?:days|weeks|months|years|hours)\b|\bwhen\b/i.test(
      question,
    )
  )
    return 'duration';
  if (/多少钱|费用|价格|收费|多少元|\bhow much\b|\bcost\b|\bfee\b|\bprice\b/i.test(question)) return 'price';
  return undefined;
}

const DURATION =
  /[\d零一二两三四五六七八九十百]+\s*(?:个)?(?:天|日|周|星期|个月|月|年|小时|分钟|工作日)|\d+\s*(?:days?|weeks?|months?|years?|hours?|minutes?)\b/i;
const PRICE = /\d+(?:\.\d+)?\s*(?:元|块)|[¥￥$€£]\s*\d|\d+\s*(?:yuan|dollars?|euros?)\b|免费|\bfree\b/i;

function candidatesOf(hit: EvidenceHit, hitRank: number, asked: Question): Candidate[] {
  const matchedText = quotable(hit.text);
  const lines = (hit.context ?? hit.text).split('\n');
  const lineCitations = hit.contextCitations?.length === lines.length ? hit.contextCitations : undefined;
  // A heading names a section; it says nothing to quote.
  const passage = lines.flatMap((line, index) =>
    /^\s*#{1,6}\s/.test(line)
      ? []
      : clausesOf(line).map((text) => ({ text, citation: lineCitations?.[index] ?? hit.citation })),
  );
  const candidates: Candidate[] = [
    {
      text: matchedText,
      citations: [hit.citation],
      score: score(asked, matchedText),
      hitRank,
      matched: true,
      position: -1,
    },
  ];
  passage.forEach(({ text, citation }, position) => {
    if (text === matchedText || Array.from(text).length < 2) return;
    const value = score(asked, text);
    if (value > 0) {
      candidates.push({ text, citations: [citation], score: value, hitRank, matched: false, position });
    }
  });
  return candidates;
}

function score(asked: Question, text: string): number {
  let total = 0;
  for (const term of termsOf(text)) if (asked.terms.has(term)) total += /^\d/.test(term) ? 3 : 1;
  if (total === 0 || asked.wants === undefined) return total;
  const gives = asked.wants === 'duration' ? DURATION.test(text) : PRICE.test(text);
  return gives ? total + 2 : total;
}

/** A passage cut into its sentences and clauses (。！？； and line ends; `. ` in English). */
export function clausesOf(passage: string): string[] {
  return passage
    .split(/(?<=[。！？；!?;])|(?<=\.)\s+/)
    .map(quotable)
    .filter((clause) => clause !== '');
}

/** A clause as quoted: trimmed, no heading or list marker, ending with a full stop. */
export function quotable(clause: string): string {
  const text = clause
    .trim()
    .replace(/^#{1,6}\s+/, '')
    .replace(/^(?:[-*•+]|\d{1,2}[.)、])\s+/, '')
    .replace(/^\d{1,2}、/, '')
    .trim();
  if (text === '') return '';
  const chinese = /\p{Script=Han}/u.test(text);
  const ended = text.replace(/[；;，,、：:]$/, chinese ? '。' : '.');
  return /[。！？.!?）)」"”]$/.test(ended) ? ended : `${ended}${chinese ? '。' : '.'}`;
}

/** One says the other (ignoring spaces, punctuation and case). */
function overlaps(left: string, right: string): boolean {
  const a = normal(left);
  const b = normal(right);
  return a !== '' && b !== '' && (a.includes(b) || b.includes(a));
}

function normal(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}\s]/gu, '');
}
