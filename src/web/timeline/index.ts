export * from './run-timeline.tsx';
export * from './timeline-layout.ts';
export * from './timeline-toggle.tsx';
export * from './usage-summary.ts';
