export * from './temporary-knowledge-directory.ts';
