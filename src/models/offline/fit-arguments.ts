import { isRecord } from './read-run.ts';
import { type JsonSchema, resolveSchema, typeOf } from './resolve-json-schema.ts';
import { foldName, tokensOf } from './text-terms.ts';

/**
 * Arguments for a tool, read out of the user's message so that they fit the tool's JSON Schema, the
 * way a model fills them. Required arguments the message does not give are reported as missing (the
 * offline model asks for them instead of calling with a guess); optional ones are written only when
 * the message gives them, their defaults left to the tool. By argument:
 *
 * - `const`: its value. `enum`: the value the message mentions; else, when required, `default`.
 * - A value written after the argument's label: 「地址：北京市朝阳区…」, `address: …`, 「数量为 2」
 *   (labels: its `title`, its name, a short description).
 * - string with a `pattern`: the message's first token (or quoted text) that matches it.
 * - string that names something (`…Id`, `number`, `code`, `sku`, `serial`, or described as 编号 / 单号
 *   / ID): the message's first token with a digit in it (`R-1001`).
 * - string of `format: email`, a phone, `format: date` / `date-time` (2025-06-01, 6月1日, 明天,
 *   tomorrow; a time as 14:30 or 3点): found in the message.
 * - string named like a query (`query`, `q`, `keyword` …): the message.
 * - string named like free text (`reason`, `note`, `description`, 原因, 备注 …): quoted text, else
 *   what follows 因为 / because, else, when required, the message.
 * - any other string: quoted text when required.
 * - number / integer: the message's next number within `minimum` / `maximum`.
 * - boolean: when required, `default` or false. array: when required, `default` or `[]` (missing if
 *   it needs items). object: when required, its own properties by the same rules.
 *
 * Identifiers, dates and enums are read first, so 「取消订单 1002 中的 2 件」 gives the order `1002`
 * and the quantity `2` whatever order the schema declares them in. What one argument took from the
 * message is not given to another. `$ref` (local), `anyOf` / `oneOf` (the first branch that is not
 * null) and `allOf` are followed. `minLength` / `maxLength` are honoured.
 */

export interface MissingArgument {
  /** `repairId`, or `address.city` for a nested one. */
  path: string;
  /** What a person calls it: its `title`, else the first phrase of its description, else its name. */
  label: string;
}

export interface FittedArguments {
  args: Record<string, unknown>;
  missing: MissingArgument[];
}

export interface FitOptions {
  /** Today, for 明天 / tomorrow. Default: the current time. */
  now?: Date;
}

export function fitArguments(schema: JsonSchema, message: string, options: FitOptions = {}): FittedArguments {
  const state: FitState = {
    root: schema,
    text: message,
    message,
    now: options.now ?? new Date(),
    missing: [],
  };
  const fitted = fitObject(resolveSchema(schema, schema), '', state);
  return { args: fitted, missing: state.missing };
}

interface FitState {
  root: JsonSchema;
  /** The message with what arguments already took blanked out. */
  text: string;
  message: string;
  now: Date;
  missing: MissingArgument[];
}

type Kind =
  | 'pattern'
  | 'identifier'
  | 'email'
  | 'phone'
  | 'date'
  | 'dateTime'
  | 'query'
  | 'freeText'
  | 'other';

/** Kinds that take a specific token, read before the rest. */
const FIRST: ReadonlySet<string> = new Set([
  'enum',
  'pattern',
  'identifier',
  'email',
  'phone',
  'date',
  'dateTime',
]);

function fitObject(schema: JsonSchema, prefix: string, state: FitState): Record<string, unknown> {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === 'string') : [],
  );
  const entries = Object.entries(properties).map(([name, raw]) => {
    const property = resolveSchema(isRecord(raw) ? raw : {}, state.root);
    return { name, property, order: FIRST.has(orderKind(name, property)) ? 0 : 1 };
  });
  const values = new Map<string, unknown>();
  for (const phase of [0, 1]) {
    for (const { name, property, order } of entries) {
      if (order !== phase) continue;
      const value = fitValue(name, property, required.has(name), `${prefix}${name}`, state);
      if (value !== undefined) values.set(name, value);
    }
  }
  // Written in the schema's order, as a model would.
  const args: Record<string, unknown> = {};
  for (const { name } of entries) if (values.has(name)) args[name] = values.get(name);
  return args;
}

function orderKind(name: string, schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return 'enum';
  return typeOf(schema) === 'string' ? kindOf(name, schema) : 'other';
}

function fitValue(
  name: string,
  schema: JsonSchema,
  required: boolean,
  path: string,
  state: FitState,
): unknown {
  const missing = (): undefined => {
    if (required) state.missing.push({ path, label: labelOf(name, schema) });
    return undefined;
  };
  const orDefault = (): unknown => (required && 'default' in schema ? schema.default : missing());
  if ('const' in schema) return required ? schema.const : undefined;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    const mentioned = schema.enum.find((value) => mentions(state.text, value));
    if (mentioned !== undefined) {
      take(state, String(mentioned));
      return mentioned;
    }
    return required && schema.enum.includes(schema.default) ? schema.default : missing();
  }
  switch (typeOf(schema)) {
    case 'string': {
      const value = fitString(name, schema, required, state);
      if (value !== undefined) return value;
      return orDefault();
    }
    case 'integer':
    case 'number': {
      const value = fitNumber(name, schema, typeOf(schema) === 'integer', state);
      if (value !== undefined) return value;
      return orDefault();
    }
    case 'boolean':
      return required ? (typeof schema.default === 'boolean' ? schema.default : false) : undefined;
    case 'array': {
      if (!required) return undefined;
      if (Array.isArray(schema.default)) return schema.default;
      return typeof schema.minItems === 'number' && schema.minItems > 0 ? missing() : [];
    }
    case 'object':
      return required ? fitObject(schema, `${path}.`, state) : undefined;
    case 'null':
      return required ? null : undefined;
    default: {
      if (!required) return undefined;
      const value = labelledValue(name, schema, state);
      return value ?? orDefault();
    }
  }
}

function kindOf(name: string, schema: JsonSchema): Kind {
  const words = foldName(name).split(' ');
  const last = words.at(-1) ?? '';
  const has = (...candidates: string[]) => candidates.some((candidate) => words.includes(candidate));
  const about = `${typeof schema.title === 'string' ? schema.title : ''} ${
    typeof schema.description === 'string' ? schema.description : ''
  }`;
  if (typeof schema.pattern === 'string') return 'pattern';
  if (schema.format === 'email' || has('email', 'mail') || /邮箱/.test(about)) return 'email';
  if (schema.format === 'date-time') return 'dateTime';
  if (schema.format === 'date' || has('date', 'day') || /日期/.test(about)) return 'date';
  if (has('phone', 'mobile', 'tel', 'telephone', 'cellphone') || /电话|手机/.test(about)) return 'phone';
  if (
    ['id', 'number', 'no', 'code', 'sku', 'serial', 'identifier', 'ref', 'reference'].includes(last) ||
    words[0] === 'serial' ||
    /编号|单号|号码|序列号|订单号|\bID\b|identifier|serial number/i.test(about)
  )
    return 'identifier';
  if (has('query', 'q', 'question', 'search', 'keyword', 'keywords', 'prompt', 'term', 'terms'))
    return 'query';
  if (
    has(
      'reason',
      'note',
      'notes',
      'comment',
      'comments',
      'remark',
      'remarks',
      'message',
      'description',
      'details',
      'detail',
      'content',
      'body',
      'text',
      'problem',
      'issue',
      'symptom',
      'symptoms',
      'summary',
    ) ||
    /原因|备注|说明|描述|留言|故障|症状|内容/.test(about)
  )
    return 'freeText';
  return 'other';
}

function fitString(name: string, schema: JsonSchema, required: boolean, state: FitState): string | undefined {
  const fits = (value: string | undefined): value is string =>
    value !== undefined && value !== '' && lengthFits(value, schema);
  const accept = (value: string | undefined): string | undefined => {
    if (!fits(value)) return undefined;
    take(state, value);
    return value;
  };
  const kind = kindOf(name, schema);
  const labelled = labelledValue(name, schema, state);
  if (kind === 'pattern') {
    const pattern = compile(schema.pattern);
    if (pattern === undefined) return undefined;
    const candidates = [...tokensOf(state.text), ...quotedIn(state.text), ...(labelled ? [labelled] : [])];
    return accept(candidates.find((candidate) => pattern.test(candidate) && fits(candidate)));
  }
  switch (kind) {
    case 'identifier': {
      if (fits(labelled) && /\d/.test(labelled)) return accept(labelled);
      const tokens = tokensOf(state.text).filter(
        (token) => /\d/.test(token) && !isDate(token) && fits(token),
      );
      return accept(
        tokens.find((token) => /[A-Za-z]/.test(token)) ?? tokens.find((token) => token.length >= 3),
      );
    }
    case 'email':
      return accept(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/.exec(state.text)?.[0]);
    case 'phone': {
      const found = /\+?\d[\d -]{5,}\d/.exec(state.text)?.[0];
      if (found === undefined) return undefined;
      take(state, found);
      return found.replace(/[ -]/g, '');
    }
    case 'date': {
      const date = dateIn(state);
      if (date === undefined) return undefined;
      take(state, date.found);
      return date.value;
    }
    case 'dateTime': {
      const date = dateIn(state);
      const time = timeIn(state.text);
      if (date === undefined || time === undefined) return undefined;
      take(state, date.found);
      take(state, time.found);
      return `${date.value}T${time.value}:00`;
    }
    case 'query':
      return accept(clip(labelled ?? withoutGreeting(state.message), schema));
    case 'freeText': {
      const given = labelled ?? quotedIn(state.text)[0] ?? becauseIn(state.text);
      if (given !== undefined) return accept(clip(given, schema));
      return required ? accept(clip(withoutGreeting(state.message), schema)) : undefined;
    }
    default:
      return accept(labelled ?? (required ? quotedIn(state.text)[0] : undefined));
  }
}

function fitNumber(name: string, schema: JsonSchema, integer: boolean, state: FitState): number | undefined {
  const labelled = labelledValue(name, schema, state);
  const candidates = [
    ...(labelled !== undefined && /^\d+(?:\.\d+)?$/.test(labelled) ? [labelled] : []),
    ...tokensOf(state.text).filter((token) => /^\d+(?:\.\d+)?$/.test(token)),
  ];
  for (const candidate of candidates) {
    const value = Number(candidate);
    if (integer && !Number.isInteger(value)) continue;
    if (!withinBounds(value, schema)) continue;
    take(state, candidate);
    return value;
  }
  return undefined;
}

function withinBounds(value: number, schema: JsonSchema): boolean {
  if (typeof schema.minimum === 'number' && value < schema.minimum) return false;
  if (typeof schema.maximum === 'number' && value > schema.maximum) return false;
  if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) return false;
  if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) return false;
  return true;
}

/**
 * A value written after the argument's label: 「地址：…」, 「数量为 2」, `city = Paris`. It ends at the
 * next comma, full stop, semicolon or line end.
 */
function labelledValue(name: string, schema: JsonSchema, state: FitState): string | undefined {
  const labels = [
    typeof schema.title === 'string' ? schema.title : undefined,
    name,
    foldName(name),
    shortDescription(schema),
  ].filter((label): label is string => label !== undefined && label.trim().length >= 2);
  for (const label of labels) {
    const escaped = label.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const match = new RegExp(`${escaped}\\s*(?:[:：=]|是|为)\\s*([^，,。；;\\n]+)`, 'i').exec(state.text);
    const value = match?.[1]?.trim();
    if (value) return value;
  }
  return undefined;
}

function shortDescription(schema: JsonSchema): string | undefined {
  if (typeof schema.description !== 'string') return undefined;
  const first = schema.description.split(/[，,。.;；:：(（\n]/)[0]?.trim() ?? '';
  return first.length > 0 && Array.from(first).length <= 12 ? first : undefined;
}

/** What a person calls the argument, for a question that asks for it. */
function labelOf(name: string, schema: JsonSchema): string {
  if (typeof schema.title === 'string' && schema.title.trim() !== '') return schema.title.trim();
  if (typeof schema.description === 'string') {
    const first = schema.description.split(/[，,。.;；\n(（]/)[0]?.trim() ?? '';
    if (first !== '') return Array.from(first).slice(0, 40).join('');
  }
  return name;
}

/** Blank what an argument took, so no other argument takes it again. */
function take(state: FitState, value: string): void {
  const at = state.text.indexOf(value);
  if (at !== -1) state.text = `${state.text.slice(0, at)} ${state.text.slice(at + value.length)}`;
}

/** The message mentions the enum value: Latin as a whole word (case folded), Chinese anywhere. */
function mentions(text: string, value: unknown): boolean {
  if (typeof value === 'number') return tokensOf(text).includes(String(value));
  if (typeof value !== 'string' || value.trim() === '') return false;
  if (/\p{Script=Han}/u.test(value)) return text.includes(value);
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9])${escaped}(?![A-Za-z0-9])`, 'i').test(text);
}

function isDate(token: string): boolean {
  return /^\d{4}[-/.]\d{1,2}[-/.]\d{1,2}$/.test(token);
}

/** Checked in this order: "day after tomorrow" says tomorrow too. */
const RELATIVE_DAYS: readonly [RegExp, number][] = [
  [/后天|day after tomorrow/i, 2],
  [/明天|tomorrow/i, 1],
  [/今天|today/i, 0],
];

/** A date the message gives, as `YYYY-MM-DD`, with the text it was read from. */
function dateIn(state: FitState): { value: string; found: string } | undefined {
  const iso = /(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})\s*[日号]?/.exec(state.text);
  if (iso) return { value: ymd(Number(iso[1]), Number(iso[2]), Number(iso[3])), found: iso[0] };
  const monthDay = /(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]/.exec(state.text);
  if (monthDay) {
    return {
      value: ymd(state.now.getFullYear(), Number(monthDay[1]), Number(monthDay[2])),
      found: monthDay[0],
    };
  }
  for (const [pattern, days] of RELATIVE_DAYS) {
    const match = pattern.exec(state.text);
    if (match) {
      const day = new Date(state.now.getFullYear(), state.now.getMonth(), state.now.getDate() + days);
      return { value: ymd(day.getFullYear(), day.getMonth() + 1, day.getDate()), found: match[0] };
    }
  }
  return undefined;
}

/** A time of day, as `HH:MM`: 14:30, 3点, 下午3点半, 3pm. */
function timeIn(text: string): { value: string; found: string } | undefined {
  const clock = /(\d{1,2})[:：](\d{2})/.exec(text);
  if (clock) return { value: hm(Number(clock[1]), Number(clock[2])), found: clock[0] };
  const chinese = /(上午|早上|中午|下午|晚上)?\s*(\d{1,2})\s*点\s*(半)?/.exec(text);
  if (chinese) {
    const hour = Number(chinese[2]);
    const afternoon = chinese[1] !== undefined && /下午|晚上/.test(chinese[1]) && hour < 12;
    return { value: hm(afternoon ? hour + 12 : hour, chinese[3] ? 30 : 0), found: chinese[0] };
  }
  const english = /\b(\d{1,2})\s*(am|pm)\b/i.exec(text);
  if (english) {
    const hour = Number(english[1]) % 12;
    return { value: hm(english[2]?.toLowerCase() === 'pm' ? hour + 12 : hour, 0), found: english[0] };
  }
  return undefined;
}

function ymd(year: number, month: number, day: number): string {
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

function hm(hour: number, minute: number): string {
  return `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
}

/** Text between quotes: "…", “…”, 「…」, 『…』, `…`. */
export function quotedIn(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(
    /"([^"\n]{1,300})"|“([^”\n]{1,300})”|「([^」\n]{1,300})」|『([^』\n]{1,300})』|`([^`\n]{1,300})`/g,
  )) {
    const quoted = (match[1] ?? match[2] ?? match[3] ?? match[4] ?? match[5] ?? '').trim();
    if (quoted !== '') found.push(quoted);
  }
  return found;
}

/** What follows 因为 / 原因是 / because / since, to the end of the sentence. */
function becauseIn(text: string): string | undefined {
  const match = /(?:因为|由于|原因是|原因：|\bbecause\b|\breason is\b|\bsince\b)\s*([^。.!！?？\n]+)/i.exec(
    text,
  );
  const reason = match?.[1]?.trim();
  return reason ? reason : undefined;
}

/** The message without a greeting in front (你好，… / Hi, …), trimmed. */
export function withoutGreeting(message: string): string {
  return message
    .trim()
    .replace(/^(?:你好|您好|嗨|哈喽|请问|hi|hello|hey)[\s,，!！。.]*/i, '')
    .trim();
}

function clip(value: string, schema: JsonSchema): string {
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : undefined;
  return max === undefined ? value : Array.from(value).slice(0, max).join('');
}

function lengthFits(value: string, schema: JsonSchema): boolean {
  const length = Array.from(value).length;
  if (typeof schema.minLength === 'number' && length < schema.minLength) return false;
  if (typeof schema.maxLength === 'number' && length > schema.maxLength) return false;
  return true;
}

function compile(pattern: unknown): RegExp | undefined {
  if (typeof pattern !== 'string') return undefined;
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}
