import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { RetrievalError } from '../retrieval-error.ts';
import type { ChunkDraft, ChunkingOptions, DocumentDraft } from './chunk-types.ts';
import { isMarkdownFaq, parseJsonFaq, parseMarkdownFaq } from './faq-parser.ts';
import { chunkMarkdown } from './markdown-chunker.ts';
import { chunkPlainText } from './plain-text-chunker.ts';

export const SUPPORTED_EXTENSIONS = new Set(['.md', '.markdown', '.txt', '.json']);

export interface LoadedChunk extends ChunkDraft {
  /**
   * Stable: a hash of the document id, heading path, text and (where it differs) the indexed text,
   * and the rare repeat's position.
   */
  chunkId: string;
}

export interface LoadedDocument extends Omit<DocumentDraft, 'chunks'> {
  docId: string;
  sourcePath: string;
  /**
   * sha-256 of the chunker's version and options and the file's bytes: an unchanged file is
   * skipped without being parsed again.
   */
  contentHash: string;
  chunks: LoadedChunk[];
}

export function hashContent(content: Uint8Array | string): string {
  return createHash('sha256').update(content).digest('hex');
}

/**
 * Names how documents are cut into clauses and passages. It is part of a document's content hash,
 * so a knowledge base ingested by an older chunker is cut again on the next ingest, not skipped as
 * unchanged. Bump it whenever chunking output changes for the same bytes.
 */
export const CHUNKING_VERSION = 'clauses-with-passages-v3';

/** The hash ingest compares: the file's bytes, the chunker and the options it ran with. */
export function documentHash(bytes: Uint8Array, options: ChunkingOptions = {}): string {
  const settings = `${CHUNKING_VERSION}\u0000${options.maxChunkChars ?? ''}\u0000${options.minChunkChars ?? ''}\u0000`;
  return createHash('sha256').update(settings).update(bytes).digest('hex');
}

/** Decode strictly: a file that is not UTF-8 is refused by name rather than indexed as mojibake. */
export function decodeUtf8(bytes: Uint8Array, path: string): string {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch (error) {
    throw new RetrievalError('not_utf8', `${path}: not UTF-8 text; convert it (e.g. iconv -f GBK -t UTF-8)`, {
      cause: error,
    });
  }
}

/** Parse a source by its extension: Markdown (policy or `## Q:` FAQ), plain text, or a JSON FAQ. */
export function parseDocument(source: string, path: string, options: ChunkingOptions = {}): DocumentDraft {
  const extension = extname(path).toLowerCase();
  const fallbackTitle = basename(path, extension);
  switch (extension) {
    case '.md':
    case '.markdown':
      return isMarkdownFaq(source)
        ? parseMarkdownFaq(source, fallbackTitle)
        : chunkMarkdown(source, fallbackTitle, options);
    case '.txt':
      return chunkPlainText(source, fallbackTitle, options);
    case '.json':
      return parseJsonFaq(source, fallbackTitle, path);
    default:
      throw new RetrievalError(
        'invalid_source',
        `${path}: unsupported file type "${extension}" (use .md, .markdown, .txt or a .json FAQ)`,
      );
  }
}

/** Give each chunk its stable id. */
export function identifyChunks(docId: string, chunks: readonly ChunkDraft[]): LoadedChunk[] {
  const seen = new Map<string, number>();
  return chunks.map((chunk) => {
    // What is indexed is part of the identity: an FAQ answer that gains a question is indexed under it,
    // so it must not count as kept with its old terms and vector. (Equal for every other chunk, whose
    // id is then what it always was.)
    const indexed = chunk.indexText === chunk.text ? '' : `\u0000${chunk.indexText}`;
    const base = hashContent(
      `${docId}\u0000${chunk.headingPath.join('\u001f')}\u0000${chunk.text}${indexed}`,
    ).slice(0, 20);
    // The same clause twice under one heading is rare but legal; its repeat gets a suffix.
    const repeat = seen.get(base) ?? 0;
    seen.set(base, repeat + 1);
    return { ...chunk, chunkId: repeat === 0 ? base : `${base}-${repeat + 1}` };
  });
}

/** Read, decode and chunk one file. `docId` is the file's path as the store knows it. */
export async function loadDocument(
  path: string,
  docId: string,
  options: ChunkingOptions = {},
): Promise<LoadedDocument> {
  const bytes = await readFile(path);
  const draft = parseDocument(decodeUtf8(bytes, docId), docId, options);
  return {
    docId,
    sourcePath: docId,
    contentHash: documentHash(bytes, options),
    title: draft.title,
    kind: draft.kind,
    chunks: identifyChunks(docId, draft.chunks),
  };
}
