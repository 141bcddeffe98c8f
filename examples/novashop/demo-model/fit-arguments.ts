import { type JsonSchema, resolveJsonSchema as resolveSchema, jsonSchemaType as typeOf } from 'runstream';
import {
  cityIn,
  directoryTokensIn,
  fileTokensIn,
  foldName,
  numbersIn,
  payloadIn,
  quotedIn,
  saysYes,
  timeZoneIn,
  urlsIn,
  withoutToolName,
} from './message-readers.ts';
import { isRecord } from './transcript.ts';

/**
 * Arguments for a host tool, made from the user's message so that they fit the tool's JSON Schema,
 * the way a model would fill them. By property (names compared with `_`, `-` and camelCase folded):
 *
 * - `enum` (any type): the first value the message mentions, else `default`, else the first value;
 *   `const`: that value.
 * - string named like path/file/filename/filepath: a file name from the message (quoted text, or a
 *   token like `notes.txt`, `./docs/a.md`), else a path like `src/`; for dir/directory/folder/cwd a
 *   path like `src/`, else `.`.
 * - string named timezone/tz/zone: an IANA zone, `UTC`, or a city's zone the message names; else
 *   omitted when optional, `default` or `UTC` when required.
 * - string named query/q/text/prompt/input/question/search/keyword/term: the message without the
 *   tool's name (`use read_file to …`, `调用 …`).
 * - string named url/uri/link; city/location/place: a URL; a city the message names.
 * - string named content/body/data: quoted text, else (when required) the message without the file
 *   names and the verbs around them (`write hello to notes.txt` → `hello`).
 * - any other string: quoted text, else the message without the tool's name (when required).
 *   `format: date-time | date` → now. `maxLength` is honoured.
 * - number/integer: the next number in the message not inside a file name, path or zone, kept within
 *   `minimum`/`maximum`; else `default`, else `minimum`, else 0.
 * - boolean: true when the message says yes/true (or, if optional, names the property), else
 *   `default`, else false.
 * - object: its properties, recursively; array: the message's file names for paths/files, else
 *   `default` or as many items as `minItems` asks.
 * - `anyOf`/`oneOf`: the first branch that is not null; `allOf`: merged; local `$ref`s are followed.
 *
 * Required properties always get a value (the message's, else `default`, else a stand-in of the
 * right type). Optional ones are filled only when the message gives them; their defaults are left to
 * the tool. Only declared properties are written, so `additionalProperties: false` holds.
 */
export type { JsonSchema } from 'runstream';

export interface FitContext {
  /** The tool's name, left out of free text (`use read_file to read notes.txt` → `read notes.txt`). */
  toolName?: string;
}

export interface FittedArguments {
  args: Record<string, unknown>;
  /**
   * Required values the message does not give, where a stand-in would be a guess (a file path, a
   * URL, a city), by property path (`path`, `options.file`). The demo asks for these rather than
   * calling the tool with a stand-in.
   */
  missing: string[];
}

export function fitArguments(
  schema: JsonSchema,
  message: string,
  context: FitContext = {},
): Record<string, unknown> {
  return fitArgumentsDetailed(schema, message, context).args;
}

export function fitArgumentsDetailed(
  schema: JsonSchema,
  message: string,
  context: FitContext = {},
): FittedArguments {
  const freeText = context.toolName ? withoutToolName(message, context.toolName) : message.trim();
  const state: FitState = {
    root: schema,
    message,
    freeText: freeText === '' ? message.trim() : freeText,
    numbers: numbersIn(message),
    missing: [],
  };
  const root = resolveSchema(schema, state.root);
  const fitted = fitObject(root, '', state, true);
  return { args: isRecord(fitted?.value) ? fitted.value : {}, missing: state.missing };
}

interface FitState {
  root: JsonSchema;
  message: string;
  /** The message without the tool's name. */
  freeText: string;
  /** Numbers not used yet, in the order the message gives them. */
  numbers: number[];
  missing: string[];
}

/** A value, and whether the message gave it (an optional property is written only then). */
interface Fitted {
  value: unknown;
  fromMessage: boolean;
}

function fitValue(
  name: string,
  raw: unknown,
  required: boolean,
  path: string,
  state: FitState,
): Fitted | undefined {
  const schema = resolveSchema(isRecord(raw) ? raw : {}, state.root);
  const fallback = (value: unknown): Fitted | undefined =>
    required ? { value: 'default' in schema ? schema.default : value, fromMessage: false } : undefined;
  if ('const' in schema) return required ? { value: schema.const, fromMessage: false } : undefined;
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return fitEnum(schema, schema.enum, required, state);
  switch (typeOf(schema)) {
    case 'object':
      return fitObject(schema, `${path}.`, state, required);
    case 'array':
      return fitArray(name, schema, required, path, state);
    case 'string':
      return fitString(name, schema, required, path, state);
    case 'integer':
    case 'number':
      return fitNumber(schema, typeOf(schema) === 'integer', required, state);
    case 'boolean': {
      const mentioned = saysYes(state.message) || (!required && mentionsName(state.message, name));
      if (mentioned) return { value: true, fromMessage: true };
      return fallback(false);
    }
    case 'null':
      return required ? { value: null, fromMessage: false } : undefined;
    default:
      return fallback(state.freeText);
  }
}

function fitObject(
  schema: JsonSchema,
  prefix: string,
  state: FitState,
  required: boolean,
): Fitted | undefined {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const requiredNames = new Set(
    Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === 'string') : [],
  );
  const value: Record<string, unknown> = {};
  let fromMessage = false;
  const missingBefore = state.missing.length;
  for (const [name, property] of Object.entries(properties)) {
    const fitted = fitValue(name, property, requiredNames.has(name), `${prefix}${name}`, state);
    if (fitted === undefined) continue;
    value[name] = fitted.value;
    fromMessage ||= fitted.fromMessage;
  }
  if (required) return { value, fromMessage };
  // An optional object is written only when the message gives something for it; what it would
  // miss then does not count.
  if (!fromMessage) {
    state.missing.length = missingBefore;
    return undefined;
  }
  return { value, fromMessage };
}

function fitArray(
  name: string,
  schema: JsonSchema,
  required: boolean,
  path: string,
  state: FitState,
): Fitted | undefined {
  const items = resolveSchema(isRecord(schema.items) ? schema.items : {}, state.root);
  const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : Number.POSITIVE_INFINITY;
  if (typeOf(items) === 'string' && kindOfName(name) === 'path') {
    const files = fileTokensIn(state.message).slice(0, maxItems);
    if (files.length > 0) return { value: files, fromMessage: true };
  }
  if (!required) return undefined;
  if (Array.isArray(schema.default)) return { value: schema.default, fromMessage: false };
  const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const values: unknown[] = [];
  for (let index = 0; index < minItems; index += 1) {
    values.push(fitValue(name, items, true, `${path}[${index}]`, state)?.value ?? null);
  }
  return { value: values, fromMessage: false };
}

function fitEnum(
  schema: JsonSchema,
  values: unknown[],
  required: boolean,
  state: FitState,
): Fitted | undefined {
  const mentioned = values.find((value) => {
    if (typeof value === 'string') return value !== '' && mentionsName(state.message, value, true);
    if (typeof value === 'number') return state.numbers.includes(value);
    return false;
  });
  if (mentioned !== undefined) return { value: mentioned, fromMessage: true };
  if (!required) return undefined;
  const value = values.includes(schema.default) ? schema.default : values[0];
  return { value, fromMessage: false };
}

export type ArgumentKind = 'path' | 'directory' | 'timezone' | 'query' | 'url' | 'city' | 'content' | 'other';

/** What a string property holds, by its name: `filePath` → path, `tz` → timezone, `q` → query … */
export function kindOfName(name: string): ArgumentKind {
  const words = foldName(name).split(' ');
  const joined = words.join('');
  const has = (...candidates: string[]) => candidates.some((candidate) => words.includes(candidate));
  if (name === 'tz' || joined.includes('timezone') || words.at(-1) === 'zone') return 'timezone';
  if (has('dir', 'directory', 'folder', 'cwd', 'dirname', 'dirpath')) return 'directory';
  if (has('path', 'file', 'filename', 'filepath', 'files', 'paths')) return 'path';
  if (has('url', 'uri', 'link', 'href', 'endpoint')) return 'url';
  if (has('city', 'location', 'place', 'region')) return 'city';
  if (has('content', 'contents', 'body', 'data')) return 'content';
  if (
    has('query', 'q', 'text', 'prompt', 'input', 'question', 'search', 'keyword', 'keywords', 'term', 'terms')
  )
    return 'query';
  return 'other';
}

function fitString(
  name: string,
  schema: JsonSchema,
  required: boolean,
  path: string,
  state: FitState,
): Fitted | undefined {
  const fromMessage = (value: string | undefined): Fitted | undefined =>
    value === undefined || value === '' ? undefined : { value: clip(value, schema), fromMessage: true };
  const standIn = (value: string): Fitted | undefined =>
    required
      ? {
          value: typeof schema.default === 'string' ? schema.default : clip(value, schema),
          fromMessage: false,
        }
      : undefined;
  const [quoted] = quotedIn(state.message);
  switch (kindOfName(name)) {
    case 'path': {
      const found = fromMessage(
        fileTokensIn(state.message)[0] ?? directoryTokensIn(state.message)[0] ?? quoted,
      );
      if (found) return found;
      if (required && typeof schema.default !== 'string') state.missing.push(path);
      return standIn('.');
    }
    case 'directory':
      return fromMessage(directoryTokensIn(state.message)[0] ?? quoted) ?? standIn('.');
    case 'timezone':
      return fromMessage(timeZoneIn(state.message)) ?? standIn('UTC');
    case 'url': {
      const found = fromMessage(urlsIn(state.message)[0]);
      if (found) return found;
      if (required && typeof schema.default !== 'string') state.missing.push(path);
      return standIn('https://example.com');
    }
    case 'city': {
      const found = fromMessage(cityIn(state.message) ?? quoted);
      if (found) return found;
      if (required && typeof schema.default !== 'string') state.missing.push(path);
      return standIn(state.freeText);
    }
    case 'query':
      return fromMessage(state.freeText);
    case 'content':
      return required
        ? (fromMessage(payloadIn(state.freeText)) ?? standIn(state.freeText))
        : fromMessage(quoted);
    case 'other': {
      if (!required) return undefined;
      if (schema.format === 'date-time') return standIn(new Date().toISOString());
      if (schema.format === 'date') return standIn(new Date().toISOString().slice(0, 10));
      // An identifier (`orderId`, `sku`, one with a `pattern`) is a token of the message, not the
      // whole sentence: 「取消订单 1002」 gives `1002` for `orderId: {pattern: "^\\d+$"}`.
      const token = tokenFor(name, schema, state.freeText);
      return fromMessage(token ?? quoted) ?? standIn(state.freeText);
    }
  }
}

/** Latin letters, digits and the marks identifiers use, as the message's candidate tokens. */
const TOKEN = /[A-Za-z0-9][A-Za-z0-9_.:/#-]*/g;

/**
 * The message's first token that fits a string with a `pattern` (a pattern that does not compile is
 * ignored), else, for a name that says identifier (`id`, `…Id`, `number`, `no`, `code`, `sku`), its
 * first token with a digit in it; undefined when there is none.
 */
function tokenFor(name: string, schema: JsonSchema, message: string): string | undefined {
  const tokens = (message.match(TOKEN) ?? []).map((token) => token.replace(/[.:/-]+$/, ''));
  if (typeof schema.pattern === 'string') {
    let pattern: RegExp;
    try {
      pattern = new RegExp(schema.pattern, 'u');
    } catch {
      return undefined;
    }
    return tokens.find((token) => pattern.test(token));
  }
  const words = foldName(name).split(' ');
  if (!['id', 'number', 'no', 'code', 'sku', 'identifier'].includes(words.at(-1) ?? '')) return undefined;
  return tokens.find((token) => /\d/.test(token));
}

function clip(value: string, schema: JsonSchema): string {
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : undefined;
  return max === undefined ? value : Array.from(value).slice(0, max).join('');
}

function fitNumber(
  schema: JsonSchema,
  integer: boolean,
  required: boolean,
  state: FitState,
): Fitted | undefined {
  const minimum = bound(schema.minimum, schema.exclusiveMinimum, integer, 1);
  const maximum = bound(schema.maximum, schema.exclusiveMaximum, integer, -1);
  const keep = (value: number) => {
    const whole = integer ? Math.round(value) : value;
    return Math.min(maximum ?? whole, Math.max(minimum ?? whole, whole));
  };
  const next = state.numbers.shift();
  if (next !== undefined) return { value: keep(next), fromMessage: true };
  if (!required) return undefined;
  if (typeof schema.default === 'number') return { value: schema.default, fromMessage: false };
  return { value: keep(minimum ?? 0), fromMessage: false };
}

/** The least (or most) value allowed, from `minimum` or `exclusiveMinimum` (both drafts' spellings). */
function bound(
  inclusive: unknown,
  exclusive: unknown,
  integer: boolean,
  direction: 1 | -1,
): number | undefined {
  if (typeof exclusive === 'number')
    return integer ? Math.floor(exclusive) + direction : exclusive + direction * 1e-6;
  if (typeof inclusive === 'number') {
    if (exclusive === true) return integer ? Math.floor(inclusive) + direction : inclusive + direction * 1e-6;
    return integer ? (direction === 1 ? Math.ceil(inclusive) : Math.floor(inclusive)) : inclusive;
  }
  return undefined;
}

/**
 * The message mentions the word (case and `_`/`-` folded), at the start of a word; `whole`: standing
 * alone (an enum value `c` is not mentioned by `could`; `recursive` is by `recursively`).
 */
function mentionsName(message: string, word: string, whole = false): boolean {
  const folded = foldName(word);
  if (folded === '') return false;
  const escaped = folded.split(' ').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const end = whole ? '(?![A-Za-z0-9])' : '';
  return new RegExp(`(?<![A-Za-z0-9])${escaped.join('[_\\-\\s]*')}${end}`, 'i').test(message);
}
