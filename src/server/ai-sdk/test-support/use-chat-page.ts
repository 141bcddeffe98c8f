import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { INTEROP_DIR } from '../../test-support/interop-clients.ts';

/**
 * A minimal `useChat` page (React and `@ai-sdk/react` from interop/node_modules), as an app on the
 * AI SDK would write it: `DefaultChatTransport` on `/v1/ai-sdk/chat` with the bearer token,
 * `resume: true`, approvals sent with `addToolApprovalResponse` and sent on automatically. Every
 * part is rendered with `data-part` (and a tool's name and state), for the test to read.
 */
const PAGE_SOURCE = `
import { createElement as h, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';

const token = new URLSearchParams(location.search).get('token');
const transport = new DefaultChatTransport({
  api: '/v1/ai-sdk/chat',
  headers: { authorization: 'Bearer ' + token },
});

function Part({ part, respond }) {
  if (part.type === 'text' || part.type === 'reasoning')
    return h('p', { 'data-part': part.type }, part.text);
  if (!part.type.startsWith('tool-')) return null;
  const name = part.type.slice(5);
  return h('div', { 'data-part': 'tool', 'data-tool': name, 'data-state': part.state },
    h('span', null, name + ' ' + JSON.stringify(part.input ?? null)),
    part.state === 'output-available' ? h('pre', { 'data-output': '' }, JSON.stringify(part.output)) : null,
    part.state === 'approval-requested'
      ? h('span', null,
          h('b', { 'data-approval-title': '' }, part.approval.descriptor?.title ?? ''),
          h('button', { 'data-testid': 'approve', onClick: () => respond({ id: part.approval.id, approved: true }) }, 'Approve'),
          h('button', { 'data-testid': 'reject', onClick: () => respond({ id: part.approval.id, approved: false }) }, 'Reject'))
      : null);
}

function App() {
  const { messages, sendMessage, status, error, addToolApprovalResponse, stop } = useChat({
    id: 'browser-chat',
    transport,
    resume: true,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState('');
  return h('main', null,
    h('ol', null, messages.map((message) =>
      h('li', { key: message.id, 'data-role': message.role, 'data-run-id': message.metadata?.runId ?? '' },
        message.parts.map((part, index) => h(Part, { key: index, part, respond: addToolApprovalResponse }))))),
    h('form', { onSubmit: (event) => { event.preventDefault(); sendMessage({ text: input }); setInput(''); } },
      h('input', { 'data-testid': 'input', value: input, onChange: (event) => setInput(event.target.value) }),
      h('button', { type: 'submit', 'data-testid': 'send' }, 'Send')),
    // useChat's own stop: it aborts the fetch, which for runstream is a disconnect.
    h('button', { 'data-testid': 'stop', onClick: () => stop() }, 'Stop'),
    // The explicit stop: the run's id from the start chunk's metadata, and runstream's cancel route.
    h('button', { 'data-testid': 'cancel-run', onClick: () => {
      const runId = messages.at(-1)?.metadata?.runId;
      fetch('/v1/runs/' + runId + '/cancel', {
        method: 'POST',
        headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' },
        body: JSON.stringify({ reason: 'user_stop' }),
      });
    } }, 'Cancel run'),
    h('p', { 'data-testid': 'status' }, status),
    error ? h('p', { 'data-testid': 'error' }, error.message) : null);
}

createRoot(document.getElementById('root')).render(h(App));
`;

const INDEX_HTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>useChat on runstream</title></head>
<body><div id="root"></div><script type="module" src="./main.js"></script></body></html>
`;

/** The page bundled with the repository's vite; its folder (remove it when done). */
export async function buildUseChatPage(): Promise<{ outDir: string; remove(): void }> {
  const root = mkdtempSync(join(tmpdir(), 'runstream-use-chat-'));
  writeFileSync(join(root, 'main.js'), PAGE_SOURCE);
  writeFileSync(join(root, 'index.html'), INDEX_HTML);
  const outDir = join(root, 'dist');
  mkdirSync(outDir);
  const { build } = await import('vite');
  const modules = join(INTEROP_DIR, 'node_modules');
  await build({
    configFile: false,
    root,
    logLevel: 'warn',
    resolve: {
      // The AI SDK's React hooks and React itself as the interop folder pins them.
      alias: [{ find: /^(react|react-dom|@ai-sdk\/react|ai)(\/.*)?$/, replacement: `${modules}/$1$2` }],
    },
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      minify: false,
      rolldownOptions: {
        // swr's 'use client' directive means nothing in a plain bundle: not worth a warning per run.
        onLog(level, log, handler) {
          if (log.code !== 'MODULE_LEVEL_DIRECTIVE') handler(level, log);
        },
      },
    },
  });
  return { outDir, remove: () => rmSync(root, { recursive: true, force: true }) };
}

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };

/**
 * The page's origin: its files, and `/v1` proxied to runstream as a same-origin app's own backend
 * would (streamed through, never buffered).
 */
export async function servePage(
  outDir: string,
  apiUrl: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const api = new URL(apiUrl);
  const server: Server = createServer((incoming, outgoing) => {
    const path = new URL(incoming.url ?? '/', 'http://page').pathname;
    if (path.startsWith('/v1/')) {
      const upstream = httpRequest(
        {
          host: api.hostname,
          port: api.port,
          method: incoming.method,
          path: incoming.url,
          headers: { ...incoming.headers, host: api.host },
        },
        (response) => {
          outgoing.writeHead(response.statusCode ?? 502, response.headers);
          response.pipe(outgoing);
        },
      );
      upstream.on('error', () => outgoing.destroy());
      // The browser going away (useChat's stop) reaches runstream as the disconnect it is.
      outgoing.on('close', () => upstream.destroy());
      incoming.pipe(upstream);
      return;
    }
    const file = normalize(join(outDir, path === '/' ? 'index.html' : path));
    if (!file.startsWith(outDir)) return void outgoing.writeHead(404).end();
    try {
      const body = readFileSync(file);
      outgoing
        .writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' })
        .end(body);
    } catch {
      outgoing.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
