import { citationNote, type Language } from './language.ts';
import type { QuotedClause } from './select-clauses.ts';

/** One line of quoted evidence: the clauses of one passage, and where they are from. */
export interface EvidenceLine {
  text: string;
  citations: string[];
}

/**
 * The clauses as lines, one per passage, in the order of each passage's best clause, so every
 * citation is given once: two clauses of one passage share a line, and a citation the answer
 * already gives (on an earlier line, or in `cited`) is not repeated on a merged clause.
 */
export function evidenceLines(
  clauses: readonly QuotedClause[],
  cited: Set<string> = new Set(),
): EvidenceLine[] {
  const lines: EvidenceLine[] = [];
  const byPassage = new Map<string, EvidenceLine>();
  for (const clause of clauses) {
    const [passage = '', ...alsoIn] = clause.citations;
    let line = byPassage.get(passage);
    if (line === undefined) {
      line = { text: '', citations: [] };
      byPassage.set(passage, line);
      lines.push(line);
    }
    line.text += clause.text;
    for (const citation of [passage, ...alsoIn]) {
      if (citation === '' || cited.has(citation)) continue;
      // A citation that has a line of its own further down is given there, not here.
      if (citation !== passage && clauses.some((other) => other.citations[0] === citation)) continue;
      cited.add(citation);
      line.citations.push(citation);
    }
  }
  return lines;
}

/** `已发货订单不能直接取消，…。（来源：knowledge/policies/order-changes.md#L21）` */
export function formatEvidence(line: EvidenceLine, language: Language): string {
  return `${line.text}${citationNote(language, line.citations)}`;
}

/** `- …（来源：…）`: a quoted line in a list. */
export function evidenceBullet(line: EvidenceLine, language: Language): string {
  return `- ${formatEvidence(line, language)}`;
}
