export * from './conversation-list.tsx';
