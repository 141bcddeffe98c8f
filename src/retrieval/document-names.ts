import type { StoredDocument } from './knowledge-store.ts';
import { extractIdentifiers, normalizeIdentifierText } from './lanes/index.ts';

/** A file name with more hyphen-joined parts than this is not searched for identifiers part by part. */
const MAX_NAME_PARTS = 12;

/**
 * The identifiers that name a document: those in its title, and those in its file name. A file name
 * is cut at everything that is not a letter, a digit or a hyphen (dots, spaces, underscores, CJK:
 * `milk.FM-DRY-0107.md`, `鲜牛奶FM-DRY-0107.md`), and within each piece every run of hyphen-joined
 * parts that is an identifier counts, since the pattern alone would read `shrimp-FM-SEA-0508` as one
 * identifier. So a name holding a longer code also names the shorter codes inside it
 * (`FM-POL-RTN-01.md` names `POL-RTN-01`): rare, and only a question quoting the shorter code sees it.
 */
export function namingIdentifiers(document: Pick<StoredDocument, 'title' | 'sourcePath'>): Set<string> {
  const names = new Set(extractIdentifiers(document.title));
  const file = (document.sourcePath.split(/[\\/]/).pop() ?? '').replace(/\.[A-Za-z0-9]+$/, '');
  for (const piece of normalizeIdentifierText(file).split(/[^A-Z0-9-]+/)) {
    const parts = piece.split('-').filter((part) => part.length > 0);
    if (parts.length > MAX_NAME_PARTS) continue;
    for (let start = 0; start < parts.length; start += 1) {
      for (let end = start + 1; end <= parts.length; end += 1) {
        const candidate = parts.slice(start, end).join('-');
        const found = extractIdentifiers(candidate);
        if (found.length === 1 && found[0] === candidate) names.add(candidate);
      }
    }
  }
  return names;
}

/** Identifier → the documents it names, built once per loaded index. */
export function documentsNamedBy(
  documents: Iterable<Pick<StoredDocument, 'docId' | 'title' | 'sourcePath'>>,
): Map<string, Set<string>> {
  const named = new Map<string, Set<string>>();
  for (const document of documents) {
    for (const identifier of namingIdentifiers(document)) {
      const docIds = named.get(identifier) ?? new Set<string>();
      docIds.add(document.docId);
      named.set(identifier, docIds);
    }
  }
  return named;
}
