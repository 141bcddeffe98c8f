export * from './dashscope-embedding-recordings.ts';
export * from './dashscope-embedding-server.ts';
export * from './fake-embedding-server.ts';
export * from './fake-rerank-server.ts';
export * from './temporary-knowledge-directory.ts';
