import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/**
 * The two tools `runstream host` declares and runs on its own machine: `read_file` (a UTF-8 text
 * file inside the host's root folder) and `local_time`. A tool never throws: whatever goes wrong
 * becomes an error result the model reads and answers from, not a crash of the host or the run.
 */

/** A host-defined function tool as `POST /v1/responses` takes it. */
export interface FunctionTool {
  type: 'function';
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** What the host submits for one call: `{call_id, output}` or `{call_id, error}`. */
export type HostToolResult = { output: string | Record<string, unknown> } | { error: string };

export interface HostToolContext {
  /** The folder `read_file` may read inside (`--root`, default the current directory). */
  root: string;
  /** The clock, for tests. */
  now?: () => Date;
}

/** Larger files are refused rather than sent whole to a model. */
export const MAX_FILE_BYTES = 256 * 1024;

export const READ_FILE_TOOL: FunctionTool = {
  type: 'function',
  name: 'read_file',
  description: "Read a UTF-8 text file from the host's disk (inside --root, default the current directory)",
  parameters: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        description: 'Path of the file, relative to the root folder of the host (e.g. notes.txt)',
      },
    },
    required: ['path'],
    additionalProperties: false,
  },
};

export const LOCAL_TIME_TOOL: FunctionTool = {
  type: 'function',
  name: 'local_time',
  description: "Get the host's local date and time",
  parameters: {
    type: 'object',
    properties: {
      timezone: {
        type: 'string',
        description: "IANA time zone, e.g. Asia/Shanghai (default: the host's own time zone)",
      },
    },
    additionalProperties: false,
  },
};

export const HOST_TOOLS: readonly FunctionTool[] = [READ_FILE_TOOL, LOCAL_TIME_TOOL];

/** Run the tool a call names with its JSON arguments. Never throws. */
export async function runHostTool(
  name: string,
  argumentsJson: string,
  context: HostToolContext,
): Promise<HostToolResult> {
  let args: unknown;
  try {
    args = argumentsJson.trim() === '' ? {} : JSON.parse(argumentsJson);
  } catch {
    return { error: `the arguments of ${name} are not valid JSON` };
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    return { error: `the arguments of ${name} must be a JSON object` };
  try {
    switch (name) {
      case READ_FILE_TOOL.name:
        return await readFileTool(args as Record<string, unknown>, context);
      case LOCAL_TIME_TOOL.name:
        return localTimeTool(args as Record<string, unknown>, context.now?.() ?? new Date());
      default:
        return {
          error: `unknown tool "${name}": this host offers ${HOST_TOOLS.map((tool) => tool.name).join(' and ')}`,
        };
    }
  } catch (error) {
    return { error: `${name} failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** Whether `path` is `root` or inside it (both absolute and normalised). */
function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * `read_file`: the file at `path` inside the root. Refused: a path that leaves the root (`..`, an
 * absolute path elsewhere, a symlink pointing out), anything that is not a regular file, a file over
 * 256 KiB, and bytes that are not UTF-8.
 */
export async function readFileTool(
  args: Record<string, unknown>,
  context: Pick<HostToolContext, 'root'>,
): Promise<HostToolResult> {
  const path = args.path;
  if (typeof path !== 'string' || path.trim() === '') return { error: 'read_file needs a path' };
  if (path.includes('\0')) return { error: 'the path contains a NUL character' };
  const root = await realpath(context.root);
  const wanted = resolve(root, path);
  if (!isInside(root, wanted)) return { error: `${path} is outside the folder this host shares` };
  let real: string;
  try {
    real = await realpath(wanted);
  } catch (error) {
    return { error: fileError(path, error) };
  }
  // A symlink inside the root may point anywhere; what counts is where it leads.
  if (!isInside(root, real)) return { error: `${path} leads outside the folder this host shares` };
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // O_NONBLOCK: opening a FIFO must not hang the host; O_NOFOLLOW: the checked path is the one read.
    handle = await open(real, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    return { error: fileError(path, error) };
  }
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) return { error: `${path} is a directory, not a file` };
    if (!stats.isFile()) return { error: `${path} is not a regular file` };
    if (stats.size > MAX_FILE_BYTES)
      return {
        error: `${path} is ${stats.size} bytes, over the ${MAX_FILE_BYTES / 1024} KiB limit`,
      };
    // Read at most one byte past the limit: a file that grew since stat is still refused.
    const buffer = Buffer.alloc(MAX_FILE_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > MAX_FILE_BYTES) return { error: `${path} is over the ${MAX_FILE_BYTES / 1024} KiB limit` };
    }
    try {
      return { output: new TextDecoder('utf-8', { fatal: true }).decode(buffer.subarray(0, length)) };
    } catch {
      return { error: `${path} is not UTF-8 text` };
    }
  } finally {
    await handle.close();
  }
}

function fileError(path: string, error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return `${path}: no such file`;
  if (code === 'EACCES' || code === 'EPERM') return `${path}: permission denied`;
  if (code === 'ELOOP') return `${path}: too many symbolic links`;
  return `${path}: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * `local_time`: the time now in `timezone` (an IANA name) or the host's own zone, as
 * `{iso, local, timezone}`: ISO 8601 with the zone's offset, a readable English form, the zone.
 */
export function localTimeTool(args: Record<string, unknown>, now: Date = new Date()): HostToolResult {
  const requested = args.timezone;
  if (requested !== undefined && requested !== null && typeof requested !== 'string')
    return { error: 'timezone must be a string such as Asia/Shanghai' };
  let timeZone: string;
  try {
    timeZone = new Intl.DateTimeFormat('en-US', {
      ...(requested ? { timeZone: requested.trim() } : {}),
    }).resolvedOptions().timeZone;
  } catch {
    return { error: `unknown time zone "${requested}": use an IANA name such as Europe/Paris` };
  }
  const local = new Intl.DateTimeFormat('en-US', {
    timeZone,
    dateStyle: 'full',
    timeStyle: 'long',
  }).format(now);
  return { output: { iso: isoInZone(now, timeZone), local, timezone: timeZone } };
}

/** `2026-03-01T20:00:00.000+08:00`: the instant written in the zone's wall-clock time and offset. */
export function isoInZone(now: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'longOffset',
  }).formatToParts(now);
  const part = (type: Intl.DateTimeFormatPartTypes) =>
    parts.find((entry) => entry.type === type)?.value ?? '';
  // `GMT+08:00`, or plain `GMT` for UTC itself.
  const offset = part('timeZoneName').replace(/^GMT/, '') || '+00:00';
  const milliseconds = String(now.getUTCMilliseconds()).padStart(3, '0');
  return `${part('year')}-${part('month')}-${part('day')}T${part('hour')}:${part('minute')}:${part('second')}.${milliseconds}${offset}`;
}
