export {
  CITATION_HREF_PREFIX,
  citationFromHref,
  citationHref,
  citationsOf,
  isCitation,
  type LinkCitationsOptions,
  linkCitations,
  type ParsedCitation,
  parseCitation,
} from './link-citations.ts';
export { type RenderMarkdownOptions, renderMarkdown } from './render-markdown.ts';
