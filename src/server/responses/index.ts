/** The Responses API face: routes, the event mapper and the Response object (docs/responses-api.md). */

export * from './plain-responses-mapper.ts';
export * from './plain-stream-response.ts';
export * from './plain-stretch.ts';
export * from './response-context.ts';
export * from './response-object.ts';
export * from './responses-event-mapper.ts';
export * from './responses-face.ts';
export * from './responses-mode.ts';
export * from './stream-response.ts';
