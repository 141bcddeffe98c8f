export * from './create-app.ts';
export * from './http-error.ts';
export * from './read-json-body.ts';
export * from './responses/index.ts';
export * from './serve-web.ts';
export * from './start-server.ts';
export * from './startup-error.ts';
export * from './stream-run.ts';
