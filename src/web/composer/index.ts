export * from './composer.tsx';
