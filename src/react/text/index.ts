export * from './block-messages.ts';
export * from './block-text.tsx';
export * from './tool-duration.ts';
