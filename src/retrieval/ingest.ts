import { access, readdir, stat } from 'node:fs/promises';
import { extname, join, relative, resolve, sep } from 'node:path';
import {
  type ChunkingOptions,
  type LoadedDocument,
  loadDocument,
  SUPPORTED_EXTENSIONS,
} from './chunking/index.ts';
import type { Embedder } from './embedder.ts';
import type { KnowledgeChangeSet, KnowledgeStore, StoredChunk, StoredDocument } from './knowledge-store.ts';
import { fieldTerms, LEXICAL_FIELDS, lexicalFieldFingerprint } from './lexical-fields.ts';
import { RetrievalError } from './retrieval-error.ts';
import { TermPacker } from './term-packer.ts';
import { defaultTextAnalyzer, type TextAnalyzer } from './text/index.ts';

export interface IngestProgress {
  phase: 'read' | 'embed' | 'write';
  done: number;
  total: number;
}

export interface IngestOptions extends ChunkingOptions {
  store: KnowledgeStore;
  /** Without an embedder, chunks are stored without vectors (the lexical lanes need none). */
  embedder?: Embedder;
  /** Document ids are paths relative to this folder. Default: the working directory. */
  baseDirectory?: string;
  onProgress?: (progress: IngestProgress) => void;
  signal?: AbortSignal;
  /** Texts per embedding call; the embedder may batch further. Default 64. */
  embedBatchSize?: number;
  /**
   * The analysis whose terms are stored for the lexical lanes: the one the knowledge base searches
   * with. Default: the general analyser.
   */
  analyzer?: TextAnalyzer;
}

export interface IngestSummary {
  documents: { added: number; changed: number; unchanged: number; removed: number };
  chunks: { added: number; unchanged: number; removed: number };
  /** Chunks sent to the embedder in this ingest (new ones, or kept ones embedded by another model). */
  embedded: number;
  durationMs: number;
}

/**
 * Ingest files and folders into the store's namespace, incrementally: an unchanged file (same bytes)
 * is not parsed or embedded again; a changed file replaces only its own chunks, and a kept clause
 * keeps its id and vector; a file gone from an ingested folder loses its chunks. Nothing else is
 * removed: documents read from other folders (into the same namespace, with any base directory) and
 * other namespaces stay as they are. Everything is read, parsed and embedded before the store is
 * touched, and the store applies the result in one transaction, so bad input (a missing path, a file
 * that is not UTF-8, a broken FAQ) leaves the index as it was.
 */
export async function ingestPaths(paths: readonly string[], options: IngestOptions): Promise<IngestSummary> {
  const started = performance.now();
  const baseDirectory = resolve(options.baseDirectory ?? process.cwd());
  const { store, embedder } = options;
  const analyzer = options.analyzer ?? defaultTextAnalyzer();
  if (paths.length === 0)
    throw new RetrievalError('invalid_source', 'name at least one file or folder to ingest');
  // Said before any file is read or embedded, not at the end of the work.
  if (store.readOnly) throw new Error('the knowledge store is open read-only; open it for writing to ingest');

  const { files, folders } = await collectFiles(paths);
  const docIdOf = (file: string) => relative(baseDirectory, file).split(sep).join('/');
  const existing = new Map((await store.listDocuments()).map((document) => [document.docId, document]));
  const summary: IngestSummary = {
    documents: { added: 0, changed: 0, unchanged: 0, removed: 0 },
    chunks: { added: 0, unchanged: 0, removed: 0 },
    embedded: 0,
    durationMs: 0,
  };
  const changes: KnowledgeChangeSet = {
    upsertDocuments: [],
    removeDocuments: [],
    putChunks: [],
    removeChunks: [],
    setEmbeddings: [],
    setFilePaths: [],
  };
  // What the embedder sees is what the lexical lanes index (an FAQ answer with its questions).
  // `target` is a chunk inserted by this ingest; without one, the vector updates a kept chunk.
  const toEmbed: { chunkId: string; input: string; target?: Omit<StoredChunk, 'ordinal'> }[] = [];
  const now = Date.now();
  // Chunks of changed documents that the store already has (same id, so same text and terms).
  const keptChunkIds = new Set<string>();

  for (const [position, file] of files.entries()) {
    options.signal?.throwIfAborted();
    options.onProgress?.({ phase: 'read', done: position, total: files.length });
    const docId = docIdOf(file);
    const document = await loadDocument(file, docId, options);
    const previous = existing.get(docId);
    const previousChunks = previous ? await store.chunkIdsOf(docId) : new Map<string, string | null>();
    if (previous?.contentHash === document.contentHash) {
      summary.documents.unchanged += 1;
      // The same document read from elsewhere (a moved checkout), or first seen since paths were recorded.
      if (previous.filePath !== file) changes.setFilePaths?.push({ docId, filePath: file });
      summary.chunks.unchanged += previous.chunkCount;
      // Same text, but perhaps a new embedding model: only the vectors are redone.
      if (embedder) {
        for (const chunk of document.chunks) {
          if (previousChunks.get(chunk.chunkId) !== embedder.model) {
            toEmbed.push({ chunkId: chunk.chunkId, input: chunk.indexText });
          }
        }
      }
      continue;
    }
    if (previous) summary.documents.changed += 1;
    else summary.documents.added += 1;
    changes.upsertDocuments.push(toStoredDocument(document, file, now));
    const newIds = new Set(document.chunks.map((chunk) => chunk.chunkId));
    for (const chunkId of previousChunks.keys()) {
      if (!newIds.has(chunkId)) {
        changes.removeChunks.push(chunkId);
        summary.chunks.removed += 1;
      }
    }
    for (const chunk of document.chunks) {
      const stored: Omit<StoredChunk, 'ordinal'> = {
        chunkId: chunk.chunkId,
        docId,
        headingPath: chunk.headingPath,
        text: chunk.text,
        indexText: chunk.indexText,
        line: chunk.line,
        clause: chunk.clause,
        parent: chunk.parent,
        embeddingModel: null,
        embedding: null,
      };
      changes.putChunks.push(stored);
      const kept = previousChunks.has(chunk.chunkId);
      if (kept) keptChunkIds.add(chunk.chunkId);
      if (kept) summary.chunks.unchanged += 1;
      else summary.chunks.added += 1;
      if (embedder && !kept) toEmbed.push({ chunkId: chunk.chunkId, input: chunk.indexText, target: stored });
      else if (embedder && previousChunks.get(chunk.chunkId) !== embedder.model) {
        toEmbed.push({ chunkId: chunk.chunkId, input: chunk.indexText });
      }
    }
  }
  options.onProgress?.({ phase: 'read', done: files.length, total: files.length });

  // A document that lived under an ingested folder and is gone from it is removed with its chunks.
  const seen = new Set(files.map(docIdOf));
  for (const document of existing.values()) {
    if (seen.has(document.docId)) continue;
    if (await livedUnder(document, folders, baseDirectory)) {
      changes.removeDocuments.push(document.docId);
      summary.documents.removed += 1;
      summary.chunks.removed += document.chunkCount;
    }
  }

  if (embedder && toEmbed.length > 0) {
    const batchSize = options.embedBatchSize ?? 64;
    for (let start = 0; start < toEmbed.length; start += batchSize) {
      options.signal?.throwIfAborted();
      options.onProgress?.({ phase: 'embed', done: start, total: toEmbed.length });
      const batch = toEmbed.slice(start, start + batchSize);
      const vectors = await embedder.embed(
        batch.map((entry) => entry.input),
        options.signal ? { signal: options.signal } : {},
      );
      batch.forEach((entry, index) => {
        const vector = vectors[index];
        if (vector === undefined) return;
        if (entry.target) {
          entry.target.embedding = vector;
          entry.target.embeddingModel = embedder.model;
        } else {
          changes.setEmbeddings.push({
            chunkId: entry.chunkId,
            embeddingModel: embedder.model,
            embedding: vector,
          });
        }
      });
    }
    summary.embedded = toEmbed.length;
    options.onProgress?.({ phase: 'embed', done: toEmbed.length, total: toEmbed.length });
  }

  // The lexical lanes' terms of every inserted chunk, analysed once here rather than at every open.
  const inserted = changes.putChunks.filter((chunk) => !keptChunkIds.has(chunk.chunkId));
  // None when nothing was inserted: a change carries its fingerprint, and storing one over the
  // field's would drop the terms of every other chunk.
  changes.putTerms = (inserted.length === 0 ? [] : LEXICAL_FIELDS).map((field) => {
    const packer = new TermPacker();
    const chunks = inserted.map((chunk) => ({
      chunkId: chunk.chunkId,
      packed: packer.pack(fieldTerms(field, chunk, analyzer)),
    }));
    return {
      field: field.name,
      fingerprint: lexicalFieldFingerprint(field, analyzer),
      dictionary: packer.dictionary,
      chunks,
    };
  });

  options.onProgress?.({ phase: 'write', done: 0, total: 1 });
  await store.apply(changes);
  options.onProgress?.({ phase: 'write', done: 1, total: 1 });
  summary.durationMs = performance.now() - started;
  return summary;
}

/**
 * Whether a document this ingest did not see was read from one of its folders, so that its file is
 * gone. Its recorded file path decides: its path relative to this ingest's base directory names
 * another file when it was ingested with another base (`knowledge/a.md` of two agents). Only a
 * document without a recorded path (stored before paths were) or whose recorded file no longer
 * exists (a moved checkout) is placed by its relative path.
 */
async function livedUnder(
  document: StoredDocument,
  folders: readonly string[],
  baseDirectory: string,
): Promise<boolean> {
  const under = (path: string) => folders.some((folder) => path.startsWith(folder + sep));
  const recorded = document.filePath;
  if (recorded !== null) {
    if (under(recorded)) return true;
    const stillThere = await access(recorded).then(
      () => true,
      () => false,
    );
    if (stillThere) return false;
  }
  return under(resolve(baseDirectory, document.sourcePath));
}

function toStoredDocument(document: LoadedDocument, filePath: string, now: number): StoredDocument {
  return {
    docId: document.docId,
    sourcePath: document.sourcePath,
    title: document.title,
    kind: document.kind,
    contentHash: document.contentHash,
    chunkCount: document.chunks.length,
    updatedAt: now,
    filePath,
  };
}

/** Files named, and supported files found under folders named (sorted, so ids and order are stable). */
async function collectFiles(paths: readonly string[]): Promise<{ files: string[]; folders: string[] }> {
  const files: string[] = [];
  const folders: string[] = [];
  for (const path of paths) {
    const absolute = resolve(path);
    const info = await stat(absolute).catch(() => undefined);
    if (info === undefined) throw new RetrievalError('invalid_source', `${path}: no such file or folder`);
    if (info.isDirectory()) {
      folders.push(absolute);
      files.push(...(await walkKnowledgeFolder(absolute)));
    } else if (SUPPORTED_EXTENSIONS.has(extname(absolute).toLowerCase())) {
      files.push(absolute);
    } else {
      throw new RetrievalError(
        'invalid_source',
        `${path}: unsupported file type (use .md, .markdown, .txt or a .json FAQ)`,
      );
    }
  }
  return { files: [...new Set(files)].sort(), folders };
}

/** Every supported knowledge file under `folder`, skipping dot files: what ingest reads and cites. */
export async function walkKnowledgeFolder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  const found: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) found.push(...(await walkKnowledgeFolder(path)));
    else if (entry.isFile() && SUPPORTED_EXTENSIONS.has(extname(entry.name).toLowerCase())) found.push(path);
  }
  return found;
}
