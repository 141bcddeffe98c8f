import { z } from 'zod';
import { RetrievalError } from '../retrieval-error.ts';
import type { ChunkDraft, DocumentDraft } from './chunk-types.ts';

const FaqFileSchema = z.array(
  z.object({
    id: z.string().optional(),
    questions: z.array(z.string().min(1)).min(1),
    answer: z.string().min(1),
    tags: z.array(z.string()).optional(),
  }),
);

/** An FAQ entry becomes one chunk: the answer as its text, indexed under its questions as well. */
function faqChunk(
  title: string,
  questions: string[],
  answer: string,
  line: number,
  clause: number,
): ChunkDraft {
  // The answer stays whole: it is what answers the question, and FAQ answers are short.
  const text = answer.trim();
  return {
    headingPath: [title, questions[0] ?? ''],
    text,
    indexText: `${questions.join('\n')}\n${text}`,
    line,
    clause,
    // An entry is its own passage: its answer is the whole context.
    parent: clause,
  };
}

/** `[{"questions": ["…"], "answer": "…"}]`, the JSON FAQ format. */
export function parseJsonFaq(source: string, title: string, path: string): DocumentDraft {
  let parsed: unknown;
  try {
    parsed = JSON.parse(source);
  } catch (error) {
    throw new RetrievalError('invalid_source', `${path}: not valid JSON (${(error as Error).message})`, {
      cause: error,
    });
  }
  const result = FaqFileSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new RetrievalError(
      'invalid_source',
      `${path}: an FAQ file is a JSON array of {"questions": [...], "answer": "..."}; at ${issue?.path.join('.') ?? '?'}: ${issue?.message ?? ''}`,
    );
  }
  const lines = answerLines(source, result.data);
  const chunks = result.data.map((entry, index) =>
    faqChunk(title, entry.questions, entry.answer, lines[index] ?? 1, index + 1),
  );
  return { title, kind: 'faq', chunks };
}

/**
 * The line each entry's answer is written on, so every entry has a citation of its own (`faq.json#L7`),
 * found by looking for the answer as JSON writes it, in order. An answer written with other escapes
 * than `JSON.stringify`'s is not found and gets the line of the entry before it.
 */
function answerLines(source: string, entries: readonly { answer: string }[]): number[] {
  let cursor = 0;
  let line = 1;
  return entries.map((entry) => {
    const at = source.indexOf(JSON.stringify(entry.answer), cursor);
    if (at === -1) return line;
    for (let position = source.indexOf('\n', cursor); position !== -1 && position < at; ) {
      line += 1;
      position = source.indexOf('\n', position + 1);
    }
    cursor = at;
    return line;
  });
}

const QUESTION = /^#{1,6}\s*(?:Q|问)\s*[:：]\s*(.+)$/i;
const ANSWER = /^\s*(?:A|答)\s*[:：]\s*(.*)$/i;
const TITLE = /^#\s+(.+)$/;

/** Whether a Markdown file is an FAQ: it has `## Q:` (or `## 问：`) headings. */
export function isMarkdownFaq(source: string): boolean {
  return source.split(/\r\n|\r|\n/).some((line) => QUESTION.test(line));
}

/**
 * `## Q: question` followed by `A: answer` lines (until the next heading), the Markdown FAQ format.
 * Several `## Q:` headings in a row share the answer that follows them.
 */
export function parseMarkdownFaq(source: string, fallbackTitle: string): DocumentDraft {
  const lines = source.split(/\r\n|\r|\n/);
  let title = fallbackTitle;
  const chunks: ChunkDraft[] = [];
  let questions: string[] = [];
  let answer: string[] = [];
  let answerLine = 0;
  const flush = () => {
    const text = answer.join('').trim();
    if (questions.length > 0 && text.length > 0) {
      chunks.push(faqChunk(title, questions, text, answerLine, chunks.length + 1));
      questions = [];
    }
    answer = [];
  };
  lines.forEach((line, index) => {
    const question = QUESTION.exec(line);
    if (question) {
      if (answer.length > 0) flush();
      questions.push((question[1] ?? '').trim());
      return;
    }
    const heading = TITLE.exec(line);
    if (heading && chunks.length === 0 && questions.length === 0) {
      title = (heading[1] ?? '').trim();
      return;
    }
    if (/^#{1,6}\s/.test(line)) {
      flush();
      return;
    }
    const start = ANSWER.exec(line);
    if (start && questions.length > 0 && answer.length === 0) {
      answerLine = index + 1;
      answer.push((start[1] ?? '').trim());
    } else if (answer.length > 0 && line.trim().length > 0) {
      answer.push(line.trim());
    }
  });
  flush();
  return { title, kind: 'faq', chunks };
}
