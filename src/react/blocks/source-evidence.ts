import type { Block } from '../../protocol/index.ts';
import type { SourceEvidence } from './message-actions.ts';

/**
 * The passages a message's knowledge searches returned, by citation, so the source drawer can show
 * the passage an answer cited with its matched clause marked. Read from the tool blocks' results,
 * which are the model's own evidence and persist with the message: a refreshed page finds them too.
 * A result of another shape (an older run, another tool) is skipped, not trusted.
 */
export function sourceEvidenceOf(blocks: readonly Block[]): Map<string, SourceEvidence> {
  const evidence = new Map<string, SourceEvidence>();
  for (const block of blocks) {
    if (block.kind !== 'tool' || block.name !== 'search_knowledge' || block.status !== 'done') continue;
    const hits = (block.result as { hits?: unknown } | undefined)?.hits;
    if (!Array.isArray(hits)) continue;
    for (const hit of hits as unknown[]) {
      const candidate = hit as Partial<
        Record<'text' | 'context' | 'section' | 'citation' | 'contextCitations', unknown>
      > | null;
      if (
        typeof candidate?.citation !== 'string' ||
        typeof candidate.text !== 'string' ||
        typeof candidate.section !== 'string'
      )
        continue;
      const context = typeof candidate.context === 'string' ? candidate.context : candidate.text;
      // The first search that returned a citation keeps it: that is what the answer was written from.
      if (!evidence.has(candidate.citation))
        evidence.set(candidate.citation, { text: candidate.text, context, section: candidate.section });
      // An answer may quote another line of the passage, cited at its own line: that line is marked.
      const lines = context.split('\n');
      const citations = candidate.contextCitations;
      if (!Array.isArray(citations) || citations.length !== lines.length) continue;
      citations.forEach((citation, index) => {
        if (typeof citation !== 'string' || evidence.has(citation)) return;
        evidence.set(citation, { text: lines[index] ?? '', context, section: candidate.section as string });
      });
    }
  }
  return evidence;
}
