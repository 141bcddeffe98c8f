import { lstat, readFile, stat } from 'node:fs/promises';
import { basename, extname, relative, resolve, sep } from 'node:path';
import { decodeUtf8, parseDocument, SUPPORTED_EXTENSIONS } from './chunking/index.ts';
import { walkKnowledgeFolder } from './ingest.ts';
import type { StoredDocument } from './knowledge-store.ts';

/** A whole source document of the knowledge base, as a citation names it. */
export interface KnowledgeSourceDocument {
  /** The document's path as the knowledge base knows it, e.g. `knowledge/policies/order-changes.md`. */
  path: string;
  /** The document's title: its first heading, or its file name. */
  title: string;
  /** The whole document, as written. */
  text: string;
}

/** Reads the documents behind citations (`path#L12`), and nothing else. */
export interface KnowledgeSources {
  /** The document at this path (without `#L…`), or undefined when it is not a source document. */
  read(path: string): Promise<KnowledgeSourceDocument | undefined>;
}

export interface FileKnowledgeSourcesOptions {
  /** Paths are relative to this folder, as in `ingestPaths`. Default: the working directory. */
  baseDirectory?: string;
}

/** Longer than any path a citation names; longer ones are not looked up. */
const MAX_PATH_LENGTH = 1024;

/**
 * The source documents `ingestPaths(paths, { baseDirectory })` ingests, read from disk by their
 * document path: the files named and the supported files found under the folders named (no
 * dotfiles, no symbolic links), listed once on the first read. Only a path in that list is read,
 * compared as a string: `..`, absolute paths or any other file answer undefined without touching the
 * file system.
 */
export function createFileKnowledgeSources(
  paths: readonly string[],
  options: FileKnowledgeSourcesOptions = {},
): KnowledgeSources {
  const baseDirectory = resolve(options.baseDirectory ?? process.cwd());
  let listing: Promise<Map<string, string>> | undefined;
  const list = () => {
    listing ??= listSources(paths, baseDirectory).catch((error: unknown) => {
      listing = undefined;
      throw error;
    });
    return listing;
  };
  return {
    async read(path) {
      if (typeof path !== 'string' || path.length === 0 || path.length > MAX_PATH_LENGTH) return undefined;
      const file = (await list()).get(path);
      if (file === undefined) return undefined;
      let bytes: Uint8Array;
      try {
        bytes = await readFile(file);
      } catch {
        // Removed since the listing: no longer a source document.
        return undefined;
      }
      let text: string;
      try {
        text = decodeUtf8(bytes, path);
      } catch {
        // The knowledge base refuses a file that is not UTF-8; so do its sources.
        return undefined;
      }
      return { path, title: titleOf(text, path), text };
    },
  };
}

/**
 * The source documents a knowledge base holds (one namespace's), read from the files they were
 * ingested from: a path is looked up among `documents()` (the knowledge base's current documents,
 * by document path), so another namespace's documents, files never ingested, `..` and absolute
 * paths answer undefined without touching the file system. A file since removed, replaced by a
 * symbolic link or no longer UTF-8 answers undefined too.
 */
export function createIndexedKnowledgeSources(
  documents: () => ReadonlyMap<string, Pick<StoredDocument, 'sourcePath' | 'title' | 'filePath'>>,
): KnowledgeSources {
  return {
    async read(path) {
      if (typeof path !== 'string' || path.length === 0 || path.length > MAX_PATH_LENGTH) return undefined;
      const document = documents().get(path);
      if (document === undefined || document.sourcePath !== path || document.filePath === null)
        return undefined;
      const file = document.filePath;
      // As the ingest reads a folder: regular files, not links to elsewhere.
      const info = await lstat(file).catch(() => undefined);
      if (!info?.isFile()) return undefined;
      let text: string;
      try {
        text = decodeUtf8(await readFile(file), path);
      } catch {
        return undefined;
      }
      // The title the citations were made with: the document as ingested.
      return { path, title: document.title, text };
    },
  };
}

function titleOf(text: string, path: string): string {
  try {
    return parseDocument(text, path).title;
  } catch {
    return basename(path, extname(path));
  }
}

/** Document path → absolute file, with the ingest's rules (`ingestPaths`). */
async function listSources(paths: readonly string[], baseDirectory: string): Promise<Map<string, string>> {
  const files: string[] = [];
  for (const path of paths) {
    const absolute = resolve(path);
    const info = await stat(absolute).catch(() => undefined);
    if (info?.isDirectory()) files.push(...(await walkKnowledgeFolder(absolute)));
    else if (info?.isFile() && SUPPORTED_EXTENSIONS.has(extname(absolute).toLowerCase()))
      files.push(absolute);
  }
  return new Map(files.map((file) => [relative(baseDirectory, file).split(sep).join('/'), file]));
}
