import DOMPurify, { type Config, type DOMPurify as Purifier } from 'dompurify';
import { Marked, type Tokens } from 'marked';
import {
  CITATION_HREF_PREFIX,
  citationFromHref,
  type LinkCitationsOptions,
  linkCitations,
} from './link-citations.ts';

/**
 * Model text → safe HTML: citations become `#source=` links, `marked` renders GitHub-flavoured
 * Markdown, and DOMPurify keeps only a small allow-list of tags, attributes and URL schemes. The
 * output is the only HTML the answer block ever puts into the page.
 */

export interface RenderMarkdownOptions {
  /** The visible text of a citation link (see `linkCitations`). */
  citationLabel?: LinkCitationsOptions['label'];
}

const ALLOWED_TAGS = [
  'p',
  'br',
  'strong',
  'em',
  'del',
  'code',
  'pre',
  'blockquote',
  'ul',
  'ol',
  'li',
  'a',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'hr',
];

const PURIFY_CONFIG: Config = {
  ALLOWED_TAGS,
  // `start` keeps an ordered list that resumes after a paragraph ("2.") numbered as written.
  ALLOWED_ATTR: ['href', 'title', 'class', 'data-citation', 'start', 'align'],
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  // http(s), mailto and in-page fragments (`#source=…`); no javascript:, data:, relative paths.
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i,
  FORBID_TAGS: ['style', 'script', 'iframe', 'img', 'form', 'input', 'svg', 'math', 'object', 'embed'],
  FORBID_ATTR: ['style', 'target', 'srcset', 'src'],
  KEEP_CONTENT: true,
};

const marked = new Marked({
  async: false,
  gfm: true,
  breaks: true,
  renderer: {
    // Raw HTML in model text is shown as text, never interpreted (DOMPurify would drop most of it).
    html({ text }: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(text);
    },
    // Images are not loaded (no external requests from the page); their alt text links to them.
    image({ href, text }: Tokens.Image) {
      const alt = escapeHtml(text || href);
      return /^https?:/i.test(href) ? `<a href="${escapeHtml(href)}">${alt}</a>` : alt;
    },
    // Task list checkboxes would be <input>s: show them as characters instead.
    checkbox({ checked }: Tokens.Checkbox) {
      return checked ? '☑ ' : '☐ ';
    },
  },
});

let purifier: Purifier | null | undefined;

/** One DOMPurify instance of our own, with its hook installed once; null where there is no DOM. */
function getPurifier(): Purifier | null {
  if (purifier !== undefined) return purifier;
  const instance = typeof window === 'undefined' ? null : DOMPurify(window);
  if (instance === null || !instance.isSupported) {
    purifier = null;
    return purifier;
  }
  instance.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeName !== 'A') return;
    const href = node.getAttribute('href') ?? '';
    // data-citation is derived from the href only, never taken from the input.
    node.removeAttribute('data-citation');
    if (href.startsWith(CITATION_HREF_PREFIX)) {
      const citation = citationFromHref(href);
      if (citation !== null) node.setAttribute('data-citation', citation);
      else node.removeAttribute('href');
    } else if (/^https?:/i.test(href)) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
  });
  purifier = instance;
  return purifier;
}

/**
 * Render Markdown (possibly an unfinished streaming fragment) to sanitised HTML. Never throws: if
 * Markdown rendering fails the text is shown escaped; without a DOM to sanitise with, it is only
 * ever escaped, never passed through.
 */
export function renderMarkdown(text: string, options: RenderMarkdownOptions = {}): string {
  const sanitizer = getPurifier();
  if (sanitizer === null) return plainHtml(text);
  let html: string;
  try {
    const linked = linkCitations(text, options.citationLabel ? { label: options.citationLabel } : {});
    html = marked.parse(linked, { async: false });
  } catch {
    return plainHtml(text);
  }
  return sanitizer.sanitize(html, PURIFY_CONFIG);
}

function plainHtml(text: string): string {
  return text === '' ? '' : `<p>${escapeHtml(text).replace(/\r?\n/g, '<br>')}</p>`;
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
