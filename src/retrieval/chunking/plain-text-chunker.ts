import {
  type ChunkDraft,
  type ChunkingOptions,
  DEFAULT_MAX_CHUNK_CHARS,
  DEFAULT_MIN_CHUNK_CHARS,
  type DocumentDraft,
} from './chunk-types.ts';
import { splitClauses } from './split-clauses.ts';

/** Plain text: paragraphs are separated by blank lines; each paragraph is split into clauses. */
export function chunkPlainText(source: string, title: string, options: ChunkingOptions = {}): DocumentDraft {
  const maxChars = options.maxChunkChars ?? DEFAULT_MAX_CHUNK_CHARS;
  const minChars = options.minChunkChars ?? DEFAULT_MIN_CHUNK_CHARS;
  const chunks: ChunkDraft[] = [];
  let paragraph: string[] = [];
  let paragraphLine = 1;
  let parent = 0;
  const flush = () => {
    if (paragraph.length > 0) parent += 1;
    for (const clause of splitClauses(paragraph.join(''), maxChars, minChars)) {
      chunks.push({
        headingPath: [title],
        text: clause,
        indexText: clause,
        line: paragraphLine,
        clause: chunks.length + 1,
        parent,
      });
    }
    paragraph = [];
  };
  source.split(/\r\n|\r|\n/).forEach((line, index) => {
    if (line.trim().length === 0) {
      flush();
      return;
    }
    if (paragraph.length === 0) paragraphLine = index + 1;
    paragraph.push(line.trim());
  });
  flush();
  return { title, kind: 'text', chunks };
}
