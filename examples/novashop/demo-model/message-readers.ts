/**
 * What the demo model picks out of a user's message to fill a host tool's arguments: file names,
 * paths, quoted text, URLs, time zones, cities and numbers. Each reader is a plain pattern.
 */

export function splitCamel(text: string): string {
  return text.replace(/([a-z0-9])([A-Z])/g, '$1 $2');
}

/** `read_file`, `read-file`, `readFile`, `Read File` → `read file`. */
export function foldName(name: string): string {
  return splitCamel(name)
    .toLowerCase()
    .replace(/[_\-\s]+/g, ' ')
    .trim();
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The tool's name as a pattern that accepts any folding of it, standing alone. */
function namePattern(name: string): RegExp | undefined {
  const parts = foldName(name).split(' ').filter(Boolean);
  if (parts.length === 0) return undefined;
  return new RegExp(`(?<![A-Za-z0-9])${parts.map(escapeRegExp).join('[_\\-\\s]*')}(?![A-Za-z0-9])`, 'i');
}

/** The message names the tool (`use read_file`, `调用 local_time`, `Read File`, `readFile`). */
export function namesTool(message: string, name: string): boolean {
  return namePattern(name)?.test(message) ?? false;
}

/**
 * The message without the tool's name and the words that only introduce it: `use read_file to read
 * notes.txt` → `read notes.txt`, `调用 local_time` → ``.
 */
export function withoutToolName(message: string, name: string): string {
  const pattern = namePattern(name);
  if (pattern === undefined) return message;
  const before = String.raw`(?:\b(?:please\s+)?(?:use|call|run|invoke|with)\s+(?:the\s+)?|(?:请|帮我)?(?:调用|使用|用)\s*)?`;
  const after = String.raw`(?:\s*(?:tool|工具))?(?:\s+to\b|\s*(?:来|去))?`;
  return message
    .replace(new RegExp(`${before}${pattern.source}${after}`, 'gi'), ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The user wrote in English: Latin letters and no Chinese characters. */
export function isEnglish(message: string): boolean {
  return !/[\u3400-\u9fff]/.test(message) && /[A-Za-z]/.test(message);
}

const URL_PATTERN = /\bhttps?:\/\/[^\s"'“”「」<>，。；！？、]+/gi;

export function urlsIn(message: string): string[] {
  return (message.match(URL_PATTERN) ?? []).map((url) => url.replace(/[.,;:!?)\]]+$/, ''));
}

/** Text between quotes or backticks: "…", “…”, 「…」, 『…』, `…` (not '…', which apostrophes break). */
export function quotedIn(message: string): string[] {
  const found: string[] = [];
  for (const match of message.matchAll(
    /"([^"\n]{1,300})"|“([^”\n]{1,300})”|「([^」\n]{1,300})」|『([^』\n]{1,300})』|`([^`\n]{1,300})`/g,
  )) {
    const text = (match[1] ?? match[2] ?? match[3] ?? match[4] ?? match[5] ?? '').trim();
    if (text !== '') found.push(text);
  }
  return found;
}

/**
 * File names and paths with an extension: `notes.txt`, `README.md`, `./docs/a.test.ts`, `~/x.json`.
 * Quoted text that looks like a path comes first. The extension starts with a letter, so `3.5` is
 * a number, not a file; URLs are not files.
 */
export function fileTokensIn(message: string): string[] {
  const text = message.replace(URL_PATTERN, ' ');
  const quoted = quotedIn(text).filter((quote) => /\.[A-Za-z]\w{0,9}$/.test(quote));
  const bare = text.match(/(?<![\w./~\\-])[\w./~\\-]*\w\.[A-Za-z]\w{0,9}(?!\w)/g) ?? [];
  return unique([...quoted, ...bare]);
}

/** Paths without an extension: `src/`, `./docs`, `/tmp/logs`, `~/notes`. */
export function directoryTokensIn(message: string): string[] {
  const text = message.replace(URL_PATTERN, ' ');
  const found = text.match(/(?<![\w./~-])(?:~|\.{1,2})?\/?[\w.-]*\/[\w./-]*/g) ?? [];
  return unique(found.filter((token) => token.replace(/[./~]/g, '') !== '' || token === '/'));
}

/** IANA zones for place names people say instead of a zone. */
const PLACE_ZONES: readonly [RegExp, string][] = [
  [/北京|上海|中国|beijing|shanghai|china/i, 'Asia/Shanghai'],
  [/香港|hong\s*kong/i, 'Asia/Hong_Kong'],
  [/台北|taipei/i, 'Asia/Taipei'],
  [/东京|日本|tokyo|japan/i, 'Asia/Tokyo'],
  [/首尔|韩国|seoul/i, 'Asia/Seoul'],
  [/新加坡|singapore/i, 'Asia/Singapore'],
  [/伦敦|英国|london/i, 'Europe/London'],
  [/巴黎|法国|paris/i, 'Europe/Paris'],
  [/柏林|德国|berlin/i, 'Europe/Berlin'],
  [/纽约|new\s*york/i, 'America/New_York'],
  [/洛杉矶|旧金山|los\s*angeles|san\s*francisco/i, 'America/Los_Angeles'],
  [/悉尼|sydney/i, 'Australia/Sydney'],
];

const ZONE_PATTERN =
  /\b(?:Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc)\/[A-Za-z_]+(?:[+-]\d{1,2})?(?:\/[A-Za-z_]+)?/g;

/** A time zone the message names: an IANA zone, UTC/GMT, or a city or country of the table above. */
export function timeZoneIn(message: string): string | undefined {
  for (const zone of message.match(ZONE_PATTERN) ?? []) if (isTimeZone(zone)) return zone;
  if (/\b(?:UTC|GMT|Zulu)\b|协调世界时|世界标准时间|格林尼治/i.test(message)) return 'UTC';
  return PLACE_ZONES.find(([pattern]) => pattern.test(message))?.[1];
}

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const CITIES =
  /北京|上海|广州|深圳|杭州|成都|南京|武汉|西安|重庆|天津|苏州|香港|台北|东京|首尔|新加坡|伦敦|巴黎|柏林|纽约|洛杉矶|旧金山|悉尼|\b(?:Beijing|Shanghai|Guangzhou|Shenzhen|Hangzhou|Hong Kong|Taipei|Tokyo|Seoul|Singapore|London|Paris|Berlin|New York|Los Angeles|San Francisco|Sydney)\b/i;

/** A city the message names (a short list of well-known ones), as written. */
export function cityIn(message: string): string | undefined {
  return CITIES.exec(message)?.[0];
}

/** The numbers in the message, in order, leaving out those inside file names, paths, URLs and zones. */
export function numbersIn(message: string): number[] {
  let text = message.replace(URL_PATTERN, ' ').replace(ZONE_PATTERN, ' ');
  for (const token of [...fileTokensIn(text), ...directoryTokensIn(text)]) text = text.replace(token, ' ');
  return (text.match(/(?<![\w.])-?\d+(?:\.\d+)?(?![\w.]*[A-Za-z])/g) ?? []).map(Number);
}

/**
 * What to write, from a request to write it: quoted text, else the message without the file names
 * and the verbs around them (`write hello to notes.txt` → `hello`, `把 hello 写到 notes.txt` → `hello`).
 */
export function payloadIn(message: string): string | undefined {
  const [quoted] = quotedIn(message);
  if (quoted !== undefined) return quoted;
  let text = message;
  for (const token of fileTokensIn(message)) text = text.replace(token, ' ');
  text = text
    .replace(/^\s*(?:please\s+)?(?:write|save|append|put|store)\b\s*/i, '')
    .replace(/\s*\b(?:to|into|in|as)\s*(?:the\s+)?(?:file)?\s*[.!]?\s*$/i, '')
    .replace(/^\s*(?:请|帮我)?把\s*/, '')
    .replace(/\s*(?:写到|写入|写进|保存到|存到|追加到)\s*(?:文件)?\s*[。！]?\s*$/, '')
    .trim();
  return text === '' ? undefined : text;
}

/** The message says yes: yes, true, 是的, 要的, 对. */
export function saysYes(message: string): boolean {
  return /\b(?:yes|true|yep)\b|是的|要的|对的|开启/i.test(message);
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
