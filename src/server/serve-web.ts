import type { Stats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import type { Context, Env, Hono } from 'hono';
import { HttpError } from './http-error.ts';

/** The page loads only its own bundled files and talks only to this server; nobody frames it. */
export const WEB_CONTENT_SECURITY_POLICY = webContentSecurityPolicy([]);

/**
 * The page's Content-Security-Policy: its own files only, and framed by exactly the origins an
 * operator allows (`RUNSTREAM_FRAME_ANCESTORS`), else by nobody (`'none'`).
 */
export function webContentSecurityPolicy(frameAncestors: readonly string[]): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    `frame-ancestors ${frameAncestors.length === 0 ? "'none'" : frameAncestors.join(' ')}`,
    "form-action 'self'",
  ].join('; ');
}

/** One allowed framer: `'self'`, or an http(s) origin whose leftmost label may be `*`. */
const FRAME_ANCESTOR = /^(?:'self'|https?:\/\/(?:\*\.)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*(?::\d{1,5})?)$/;

/**
 * `RUNSTREAM_FRAME_ANCESTORS`: origins separated by spaces or commas (`https://shop.example.com
 * https://*.example.com 'self'`); empty or `'none'` means nobody. Anything else (a path, a
 * scheme-only source, a quote left open) is refused: a typo must not open the page to every site.
 */
export function frameAncestorsFromEnv(env: Readonly<Record<string, string | undefined>>): string[] {
  const value = env.RUNSTREAM_FRAME_ANCESTORS?.trim() ?? '';
  if (value === '' || value === "'none'") return [];
  const origins = value.split(/[\s,]+/).filter((origin) => origin !== '');
  for (const origin of origins)
    if (!FRAME_ANCESTOR.test(origin))
      throw new Error(
        `RUNSTREAM_FRAME_ANCESTORS: "${origin}" is not an origin such as https://shop.example.com, https://*.example.com or 'self'`,
      );
  return [...new Set(origins)];
}

export interface ServeWebOptions {
  /** Origins that may frame the page (see `frameAncestorsFromEnv`); none when absent. */
  frameAncestors?: readonly string[];
}

/** Hashed file names under /assets never change content. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Other files at the root (favicon.svg, robots.txt) keep their names across builds. */
const SHORT_CACHE = 'public, max-age=3600';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.wasm': 'application/wasm',
};

/** One path segment of a file name: no separators, no dot files, nothing `..`. */
const SAFE_SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9_.@-]*$/;

/**
 * Serve the built web chat UI (`dist/web`) without authentication: `/` and the client-side routes
 * `/c/*` answer `index.html` (revalidated on every load), `/assets/*` the hashed bundle (cached for a
 * year), and other files at the root (`favicon.svg`) with a short cache. Paths are decoded, checked
 * segment by segment and resolved inside the root; anything else is the usual 404 JSON. HTML carries a
 * strict Content-Security-Policy. Register it after the API routes: `/health` and `/v1` keep theirs.
 */
export function serveWeb<E extends Env>(app: Hono<E>, webRoot: string, options: ServeWebOptions = {}): void {
  const root = resolve(webRoot);
  const policy = webContentSecurityPolicy(options.frameAncestors ?? []);
  const index = resolve(root, 'index.html');

  const page = async (context: Context<E>) => {
    const found = await fileAt(index);
    if (found === undefined)
      throw new HttpError(
        503,
        'web_ui_not_built',
        'the web UI is not built yet: run `npm run build:web`, then reload',
      );
    return send(context, index, found, 'no-cache', policy);
  };
  app.get('/', page);
  app.get('/index.html', page);
  app.get('/c/*', page);

  app.get('/assets/*', async (context) => {
    const file = inside(root, pathSegments(context));
    const found = file === undefined ? undefined : await fileAt(file);
    if (file === undefined || found === undefined) return context.notFound();
    return send(context, file, found, IMMUTABLE);
  });

  app.get('/:file', async (context) => {
    const file = inside(root, pathSegments(context));
    const found = file === undefined ? undefined : await fileAt(file);
    if (file === undefined || found === undefined) return context.notFound();
    return send(context, file, found, SHORT_CACHE);
  });
}

/**
 * The request path's segments, each percent-decoded and safe, or undefined: `..` and `%2e%2e`, `%2f`,
 * `%5c`, NUL, dot files and empty segments all fail here.
 */
function pathSegments(context: Context): string[] | undefined {
  const segments = new URL(context.req.url).pathname.split('/').slice(1);
  const decoded: string[] = [];
  for (const segment of segments) {
    let value: string;
    try {
      value = decodeURIComponent(segment);
    } catch {
      return undefined;
    }
    if (!SAFE_SEGMENT.test(value)) return undefined;
    decoded.push(value);
  }
  return decoded.length === 0 ? undefined : decoded;
}

/** `root`/`segments`, only when it resolves strictly inside `root`. */
function inside(root: string, segments: string[] | undefined): string | undefined {
  if (segments === undefined) return undefined;
  const file = resolve(root, ...segments);
  if (!file.startsWith(root + sep)) return undefined;
  return file;
}

async function fileAt(file: string): Promise<Stats | undefined> {
  const info = await stat(file).catch(() => undefined);
  return info?.isFile() ? info : undefined;
}

async function send(
  context: Context,
  file: string,
  info: Stats,
  cacheControl: string,
  policy = WEB_CONTENT_SECURITY_POLICY,
): Promise<Response> {
  const type = CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
  const etag = `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
  const headers: Record<string, string> = {
    'content-type': type,
    'cache-control': cacheControl,
    etag,
    'last-modified': info.mtime.toUTCString(),
    'x-content-type-options': 'nosniff',
  };
  if (type.startsWith('text/html')) {
    headers['content-security-policy'] = policy;
    headers['referrer-policy'] = 'no-referrer';
  }
  const ifNoneMatch = context.req.header('if-none-match');
  if (ifNoneMatch?.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*'))
    return context.body(null, 304, headers);
  let body: Uint8Array;
  try {
    body = await readFile(file);
  } catch {
    return context.notFound();
  }
  headers['content-length'] = String(body.byteLength);
  return context.body(body as Uint8Array<ArrayBuffer>, 200, headers);
}
