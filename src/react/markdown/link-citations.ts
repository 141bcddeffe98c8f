/**
 * Answers cite knowledge sources inline, e.g. `…不能直接取消。（来源：knowledge/policies/order-changes.md#L21）`.
 * `linkCitations` turns each cited path into a Markdown link whose `#source=` fragment carries the
 * whole citation, so a click handler can read it back (`citationFromHref`) and open the source.
 * The surrounding `（来源：…）` stays as the model wrote it; only the citations become links.
 *
 * Pure string work: no DOM, safe on unfinished streaming text (an unclosed `（来源：…` is left as text
 * until its closing bracket arrives, so a half-streamed path is never linked).
 */

/** The `href` prefix of a citation link. */
export const CITATION_HREF_PREFIX = '#source=';

/** `（来源：…）`, `(来源: …)`, `(source: …)`, `(Source: …)`: one bracketed list of citations on one line. */
const CITATION_GROUP = /([（(])([ \t]*(?:来源|source)[ \t]*[：:][ \t]*)([^（）()\n]+?)([ \t]*[）)])/giu;

/** A run of characters between separators inside a citation group. */
const CITATION_PIECE = /[^\s；;，,、]+/gu;

/**
 * A file path with an extension and an optional line anchor: `knowledge/policies/order-changes.md#L21`,
 * `knowledge/faq.json#L3-L5`, `faq-delivery.md`. Anything else inside the brackets stays plain text.
 */
const CITATION = /^(?:[\w.@+/-]|[^\p{ASCII}\p{P}\s])+?\.[A-Za-z][A-Za-z0-9]{0,9}(?:#L\d+(?:-L?\d+)?)?$/u;

export interface ParsedCitation {
  /** `knowledge/policies/order-changes.md` */
  path: string;
  /** `order-changes.md` */
  fileName: string;
  /** 21 for `#L21`, else null. */
  line: number | null;
  /** 25 for `#L21-L25`, else null. */
  lineEnd: number | null;
}

export interface LinkCitationsOptions {
  /** The visible link text for a citation; defaults to `order-changes.md#L21`. */
  label?: (citation: string) => string;
}

export function isCitation(text: string): boolean {
  return CITATION.test(text);
}

export function parseCitation(citation: string): ParsedCitation {
  const hash = citation.indexOf('#');
  const path = hash === -1 ? citation : citation.slice(0, hash);
  const anchor = hash === -1 ? '' : citation.slice(hash + 1);
  const lines = /^L(\d+)(?:-L?(\d+))?$/.exec(anchor);
  const fileName = path.slice(path.lastIndexOf('/') + 1) || path;
  return {
    path,
    fileName,
    line: lines?.[1] !== undefined ? Number(lines[1]) : null,
    lineEnd: lines?.[2] !== undefined ? Number(lines[2]) : null,
  };
}

export function defaultCitationLabel(citation: string): string {
  const { fileName } = parseCitation(citation);
  const hash = citation.indexOf('#');
  return hash === -1 ? fileName : `${fileName}${citation.slice(hash)}`;
}

/** `#source=knowledge%2Fpolicies%2Forder-changes.md%23L21` for `knowledge/policies/order-changes.md#L21`. */
export function citationHref(citation: string): string {
  return `${CITATION_HREF_PREFIX}${encodeURIComponent(citation).replace(/\(/g, '%28').replace(/\)/g, '%29')}`;
}

/**
 * The citation a link points at, from its `href` (the attribute or a resolved URL), or null when the
 * link is not a citation link.
 */
export function citationFromHref(href: string | null | undefined): string | null {
  if (!href) return null;
  const at = href.indexOf(CITATION_HREF_PREFIX);
  if (at === -1) return null;
  // The whole fragment, `…/page#source=…` or a bare `#source=…`; an encoded citation has no raw `#`.
  const encoded = href.slice(at + CITATION_HREF_PREFIX.length);
  if (href.indexOf('#') !== at || encoded.includes('#')) return null;
  try {
    const citation = decodeURIComponent(encoded);
    return citation === '' ? null : citation;
  } catch {
    return null;
  }
}

/** Turn every citation of `text` into a Markdown link to `#source=<citation>`. */
export function linkCitations(text: string, options: LinkCitationsOptions = {}): string {
  const label = options.label ?? defaultCitationLabel;
  return mapProse(text, (prose) =>
    prose.replace(CITATION_GROUP, (_whole, open: string, lead: string, list: string, close: string) => {
      const linked = list.replace(CITATION_PIECE, (piece) =>
        isCitation(piece) ? `[${escapeMarkdown(label(piece))}](${citationHref(piece)})` : piece,
      );
      return `${open}${lead}${linked}${close}`;
    }),
  );
}

/** The citations of `text` in order of first appearance, each once (code is not searched). */
export function citationsOf(text: string): string[] {
  const found = new Set<string>();
  mapProse(text, (prose) => {
    for (const group of prose.matchAll(CITATION_GROUP)) {
      for (const piece of (group[3] ?? '').matchAll(CITATION_PIECE)) {
        if (isCitation(piece[0])) found.add(piece[0]);
      }
    }
    return prose;
  });
  return [...found];
}

/** Backslash-escape ASCII punctuation so a label cannot open emphasis, code or another link. */
function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()<>#+!|~]/g, '\\$&');
}

/**
 * Apply `transform` to the prose of a Markdown text, leaving fenced code blocks (closed or still
 * streaming) and inline code spans untouched.
 */
function mapProse(text: string, transform: (prose: string) => string): string {
  let output = '';
  let prose = '';
  let fence: { char: string; length: number } | null = null;
  for (const line of text.split(/(?<=\n)/)) {
    if (fence !== null) {
      output += line;
      const closing = /^ {0,3}(`+|~+)[ \t]*\r?\n?$/.exec(line);
      if (closing?.[1] !== undefined && closing[1][0] === fence.char && closing[1].length >= fence.length) {
        fence = null;
      }
      continue;
    }
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (
      opening?.[1] !== undefined &&
      !(opening[1][0] === '`' && line.slice(opening[0].length).includes('`'))
    ) {
      output += mapInline(prose, transform) + line;
      prose = '';
      fence = { char: opening[1][0] ?? '`', length: opening[1].length };
      continue;
    }
    prose += line;
  }
  return output + mapInline(prose, transform);
}

/** Apply `transform` outside inline code spans (a backtick run closed by a run of the same length). */
function mapInline(text: string, transform: (prose: string) => string): string {
  if (text === '') return text;
  let output = '';
  let last = 0;
  for (const span of text.matchAll(/(?<!`)(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g)) {
    output += transform(text.slice(last, span.index)) + span[0];
    last = span.index + span[0].length;
  }
  return output + transform(text.slice(last));
}
