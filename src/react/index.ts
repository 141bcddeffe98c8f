/**
 * `runstream/react`: a conversation with a runstream server as React state (`useRunstreamChat`),
 * and the components that render an assistant message's blocks (`AssistantMessage` and each block
 * on its own), with class names and components you can replace and Markdown sanitised with
 * DOMPurify. The shipped chat page is built on exactly these. Styles are a separate stylesheet
 * (`runstream/react/styles.css`), so a page that brings its own loads none.
 */
export * from './blocks/index.ts';
export * from './chat/index.ts';
export * from './markdown/index.ts';
export * from './text/index.ts';
