import {
  type ChunkDraft,
  type ChunkingOptions,
  DEFAULT_MAX_CHUNK_CHARS,
  DEFAULT_MIN_CHUNK_CHARS,
  type DocumentDraft,
} from './chunk-types.ts';
import { splitClauses, splitLongClause } from './split-clauses.ts';

const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;
const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)、])\s+(.*)$/;
const TABLE_ROW = /^\s*\|(.+)\|\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;
const FENCE = /^\s*(```|~~~)/;

interface Block {
  text: string;
  line: number;
  /**
   * `paragraph`: split into clauses, short ones joined; `item`: a list item, split at clause ends
   * but never joined to a neighbour; `row`: a table row, one clause however it is punctuated.
   */
  shape: 'paragraph' | 'item' | 'row';
}

/**
 * Split a Markdown policy into clause-level chunks that keep their heading path. Paragraphs are split
 * at clause punctuation; each list item and each table row is its own clause (a table row carries its
 * header, so 「M | 26.5」 reads as 「尺码: M，脚长: 26.5」). Front matter and fenced code are skipped.
 */
export function chunkMarkdown(
  source: string,
  fallbackTitle: string,
  options: ChunkingOptions = {},
): DocumentDraft {
  const maxChars = options.maxChunkChars ?? DEFAULT_MAX_CHUNK_CHARS;
  const minChars = options.minChunkChars ?? DEFAULT_MIN_CHUNK_CHARS;
  const lines = source.split(/\r\n|\r|\n/);
  let title: string | undefined;
  const headings: { level: number; text: string }[] = [];
  const chunks: ChunkDraft[] = [];
  let paragraph: { text: string; line: number } | undefined;
  let tableHeader: string[] | undefined;
  let inFence = false;
  let index = 0;
  // Each paragraph is a passage of its own; a table's rows share one, and so do a list's items: an
  // item alone is often a fragment of what the list says (「发票抬头填错的可换开 1 次」 next to 「换开
  // 时原发票红冲」), and measured on the dev set, one passage per list found the answer more often.
  // A paragraph that a list or table follows in the same section introduces it (「以下商品一经签收，
  // 不支持七天无理由退货。」 before the goods, 「到账时间如下：」 before the table): the list joins the
  // paragraph's passage, so an item's context carries what the list is about.
  let parent = 0;
  let openGroup: Block['shape'] | undefined;
  let leadIn = false;

  const emit = (block: Block) => {
    const grouped = block.shape !== 'paragraph';
    const joinsLeadIn = grouped && openGroup === undefined && leadIn;
    if (!joinsLeadIn && (!grouped || openGroup !== block.shape)) parent += 1;
    openGroup = grouped ? block.shape : undefined;
    leadIn = !grouped;
    const passage = parent;
    const clauses =
      block.shape === 'row'
        ? splitLongClause(block.text, maxChars)
        : splitClauses(block.text, maxChars, block.shape === 'item' ? 0 : minChars);
    for (const clause of clauses) {
      chunks.push({
        headingPath: headings.map((heading) => heading.text),
        text: clause,
        indexText: clause,
        line: block.line,
        clause: chunks.length + 1,
        parent: passage,
      });
    }
  };
  const flushParagraph = () => {
    if (paragraph !== undefined) emit({ ...paragraph, shape: 'paragraph' });
    paragraph = undefined;
  };

  if (lines[0]?.trim() === '---') {
    const end = lines.findIndex((line, position) => position > 0 && line.trim() === '---');
    if (end > 0) index = end + 1;
  }
  for (; index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    const lineNumber = index + 1;
    if (FENCE.test(line)) {
      flushParagraph();
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    const heading = HEADING.exec(line);
    if (heading) {
      flushParagraph();
      tableHeader = undefined;
      openGroup = undefined;
      leadIn = false;
      const level = heading[1]?.length ?? 1;
      const text = stripInline((heading[2] ?? '').trim());
      if (level === 1 && title === undefined) title = text;
      while ((headings[headings.length - 1]?.level ?? 0) >= level) headings.pop();
      headings.push({ level, text });
      continue;
    }
    if (line.trim().length === 0) {
      flushParagraph();
      tableHeader = undefined;
      openGroup = undefined;
      continue;
    }
    const row = TABLE_ROW.exec(line);
    if (row) {
      flushParagraph();
      if (TABLE_RULE.test(line)) continue;
      const cells = (row[1] ?? '').split('|').map((cell) => cell.trim());
      if (tableHeader === undefined) {
        tableHeader = cells;
        openGroup = undefined;
        continue;
      }
      const header = tableHeader;
      const text = cells
        .map((cell, position) => (header[position] ? `${header[position]}: ${cell}` : cell))
        .join('，');
      emit({ text, line: lineNumber, shape: 'row' });
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      flushParagraph();
      emit({ text: (item[1] ?? '').trim(), line: lineNumber, shape: 'item' });
      continue;
    }
    const text = stripInline(line.trim());
    paragraph =
      paragraph === undefined
        ? { text, line: lineNumber }
        : { ...paragraph, text: `${paragraph.text}${joiner(paragraph.text, text)}${text}` };
  }
  flushParagraph();
  const documentTitle = title ?? fallbackTitle;
  // The title is the root of every heading path, also for clauses before the first heading.
  for (const chunk of chunks) {
    if (chunk.headingPath[0] !== documentTitle) chunk.headingPath.unshift(documentTitle);
    chunk.text = stripInline(chunk.text);
    chunk.indexText = chunk.text;
  }
  return { title: documentTitle, kind: 'policy', chunks: chunks.filter((chunk) => chunk.text.length > 0) };
}

/** Emphasis and inline code marks are layout, not content. */
function stripInline(text: string): string {
  return text.replace(/\*\*|__|`/g, '').replace(/\[([^\]]+)\]\([^)]*\)/g, '$1');
}

/** Chinese lines wrap without a space; Latin words need one. */
function joiner(left: string, right: string): string {
  return /[A-Za-z0-9]$/.test(left) && /^[A-Za-z0-9]/.test(right) ? ' ' : '';
}
