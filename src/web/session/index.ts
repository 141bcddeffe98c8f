export * from './session-gate.tsx';
export * from './session-token.ts';
