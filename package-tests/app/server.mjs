// The server as a user writes it in plain JavaScript (`node server.mjs`): `createRunstream` from
// `runstream`, the SQLite store and `serve` from `runstream/node`, the shop's own login in
// `authenticate`. With PAGE_DIR it also serves a built page on a second port, from the same origin as
// the API: the page's files, and the same runstream mounted with `toNodeHandler` under /support.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { createRunstream } from 'runstream';
import { serve, sqliteStore, toNodeHandler } from 'runstream/node';
import { supportAgent } from './agent.mjs';
import { packageTestModel } from './model.mjs';

const BASE_PATH = '/support';
const store = sqliteStore(process.env.DATABASE ?? 'data/runstream.db');

const runstream = createRunstream({
  agents: [supportAgent],
  store,
  model: packageTestModel,
  basePath: BASE_PATH,
  // The shop's login: a bearer token naming the shopper (a real app reads its session here).
  authenticate: (request) => {
    const token = /^Bearer (shopper-[a-z0-9-]+)$/.exec(request.headers.get('authorization') ?? '');
    return token === null ? null : { userId: token[1] };
  },
  log: (line) => {
    if (line.level === 'error' || line.level === 'warn') console.error(JSON.stringify(line));
  },
});

const api = await serve(runstream, { port: 0, host: '127.0.0.1' });

let page;
if (process.env.PAGE_DIR !== undefined) {
  const pageDir = process.env.PAGE_DIR;
  const handle = toNodeHandler(runstream);
  const types = {
    '.html': 'text/html',
    '.js': 'text/javascript',
    '.css': 'text/css',
    '.svg': 'image/svg+xml',
  };
  page = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://page').pathname;
    if (path === BASE_PATH || path.startsWith(`${BASE_PATH}/`)) return handle(request, response);
    const file = normalize(join(pageDir, path === '/' ? 'index.html' : path));
    if (!file.startsWith(pageDir)) return response.writeHead(404).end();
    try {
      const body = await readFile(file);
      response.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
      response.end(body);
    } catch {
      response.writeHead(404).end('not found');
    }
  });
  await new Promise((resolve) => page.listen(0, '127.0.0.1', resolve));
}

// One line the test reads: where the API and the page are.
console.log(
  JSON.stringify({
    api: `${api.url}${BASE_PATH}`,
    ...(page === undefined ? {} : { page: `http://127.0.0.1:${page.address().port}` }),
  }),
);

process.once('SIGTERM', async () => {
  page?.close();
  page?.closeAllConnections();
  await api.close();
  store.close();
  process.exit(0);
});
