export * from './chunk-types.ts';
export * from './faq-parser.ts';
export * from './load-document.ts';
export * from './markdown-chunker.ts';
export * from './plain-text-chunker.ts';
export * from './split-clauses.ts';
