export * from './connection-banner.tsx';
