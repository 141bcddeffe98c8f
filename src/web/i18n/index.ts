export * from './i18n-context.tsx';
export * from './messages.ts';
