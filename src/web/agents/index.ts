export * from './agent-picker.tsx';
