export * from './run-timeline.tsx';
export * from './timeline-layout.ts';
