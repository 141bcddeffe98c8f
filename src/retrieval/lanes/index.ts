export * from './extract-identifiers.ts';
export * from './hnsw-graph.ts';
export * from './identifier-index.ts';
export * from './inverted-index.ts';
export * from './postings-codec.ts';
export * from './select-top.ts';
export * from './vector-index.ts';
