export * from './fake-embedding-server.ts';
export * from './fake-rerank-server.ts';
export * from './temporary-knowledge-directory.ts';
