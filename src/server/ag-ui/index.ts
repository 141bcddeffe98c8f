/** The AG-UI face: routes, the event mapper and the stream (docs/integrations/ag-ui.md). */
export * from './ag-ui-event-mapper.ts';
export * from './ag-ui-face.ts';
export * from './ag-ui-log-face.ts';
export * from './ag-ui-request.ts';
export * from './ag-ui-terminal.ts';
export * from './stream-ag-ui.ts';
