export * from './run-timeline.tsx';
export * from './timeline-layout.ts';
export * from './usage-summary.ts';
