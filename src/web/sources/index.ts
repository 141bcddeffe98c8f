export * from './source-drawer.tsx';
