import type { ToolDefinition } from 'runstream';
import { detectIntent } from './intent.ts';
import { fileTokensIn, foldName, namesTool, splitCamel, withoutToolName } from './message-readers.ts';
import { TOOL } from './turn-plan.ts';

/**
 * When the demo model calls a host tool: a tool in the request that is not one of NovaShop's own
 * (`load_skill`, `query_order`, `cancel_order`, `search_knowledge`) was declared by the host (a CLI,
 * an IDE plugin …), which runs it and sends the output back. The demo model calls one when the
 * user's last message names it, or plainly asks for what it does. The rules are small on purpose,
 * so anyone can predict what the demo will do with a sentence:
 *
 * 1. Named: the message contains the tool's name, with `_`, `-`, spaces, camelCase and case folded
 *    (`read_file`, `read-file`, `Read File`, `readFile` all name `read_file`). A named tool is called.
 * 2. Otherwise, keywords: the message and the tool (its name parts and description) are each read
 *    into concepts of `HOST_CONCEPTS` (English words and Chinese phrases: 几点/time → time,
 *    文件/file/`notes.txt` → file, 读/read → read …) and into other English words of 4 letters or
 *    more. What both share scores: an object concept 2 (time, date, file, directory, weather,
 *    command, web), an action or qualifier concept 1 (read, write, list, search, run, delete; local,
 *    now), any other shared word 1. The tool matches when it scores at least
 *    `HOST_MATCH.threshold` (2) with at least one shared object concept or word, and the message
 *    does not ask for a different action than the tool's (reading a file does not call `write_file`).
 *    A tool that changes things (write, run, delete) needs the message to ask for that action:
 *    `notes.txt` alone may read the file, never overwrite it.
 *    A message NovaShop's own rules recognise (`detectIntent` ≠ unknown: 退款要多长时间 is a return
 *    question, not a clock question) needs `HOST_MATCH.overShopIntent` (4).
 * 3. Every named tool is called; of the others, every one that matches and scores at least half the
 *    best keyword score. Several tools are called in one turn, in the order the request declares them.
 */

export const NOVASHOP_TOOL_NAMES: ReadonlySet<string> = new Set<string>(Object.values(TOOL));

/** The host's tools in a request: every tool that is not NovaShop's own, in the order declared. */
export function hostToolsIn(tools: readonly ToolDefinition[]): ToolDefinition[] {
  return tools.filter((tool) => !NOVASHOP_TOOL_NAMES.has(tool.name));
}

export function isHostToolName(name: string): boolean {
  return !NOVASHOP_TOOL_NAMES.has(name);
}

export type ConceptKind = 'object' | 'action' | 'qualifier';

export interface HostConcept {
  id: string;
  kind: ConceptKind;
  /** English words (compared after folding case and a trailing plural `s`). */
  english: readonly string[];
  /** Chinese phrases. */
  chinese: RegExp;
  /** An action that changes something: a tool that does it is called only when the message asks for it. */
  changes?: boolean;
}

/** The bilingual keyword table for what host tools commonly do. */
export const HOST_CONCEPTS: readonly HostConcept[] = [
  {
    id: 'time',
    kind: 'object',
    english: ['time', 'clock', 'hour', "o'clock", 'oclock'],
    // Not 多长时间 / 多少时间 / 七天时间内: those ask how long something takes.
    chinese: /(?<!多长|多少|一段|[天周月年])时间(?![内段])|几点|点钟|时刻|钟点/,
  },
  {
    id: 'date',
    kind: 'object',
    english: ['date', 'today', 'weekday', 'calendar'],
    chinese: /日期|几号|星期几|周几|礼拜几|今天是|哪一天|日历/,
  },
  {
    id: 'file',
    kind: 'object',
    english: ['file', 'document', 'txt', 'readme'],
    chinese: /文件(?!夹)|文档|文本/,
  },
  {
    id: 'directory',
    kind: 'object',
    english: ['directory', 'folder', 'dir'],
    chinese: /目录|文件夹/,
  },
  {
    id: 'weather',
    kind: 'object',
    english: ['weather', 'temperature', 'forecast', 'rain', 'sunny'],
    chinese: /天气|气温|温度|下雨|预报/,
  },
  {
    id: 'command',
    kind: 'object',
    english: ['command', 'shell', 'script', 'terminal'],
    chinese: /命令|脚本|终端/,
  },
  {
    id: 'web',
    kind: 'object',
    english: ['web', 'website', 'webpage', 'url', 'internet', 'online'],
    chinese: /网页|网站|网上|网址|链接/,
  },
  {
    id: 'read',
    kind: 'action',
    english: ['read', 'reading', 'open', 'view', 'cat', 'content'],
    chinese: /读|打开|查看|看看|看一下|内容/,
  },
  {
    id: 'write',
    kind: 'action',
    changes: true,
    english: ['write', 'writing', 'save', 'create', 'append'],
    chinese: /写|保存|存到|创建|新建/,
  },
  {
    id: 'list',
    kind: 'action',
    english: ['list', 'listing', 'ls', 'enumerate'],
    chinese: /列出|列一下|列表|有哪些/,
  },
  {
    id: 'search',
    kind: 'action',
    english: ['search', 'find', 'grep', 'lookup'],
    chinese: /搜索|搜一下|查找|找一下/,
  },
  {
    id: 'run',
    kind: 'action',
    changes: true,
    english: ['run', 'execute', 'exec'],
    chinese: /运行|执行|跑一下/,
  },
  {
    id: 'delete',
    kind: 'action',
    changes: true,
    english: ['delete', 'remove'],
    chinese: /删除|删掉/,
  },
  {
    id: 'local',
    kind: 'qualifier',
    english: ['local', 'host', 'machine', 'computer'],
    chinese: /本地|本机|电脑|宿主/,
  },
  {
    id: 'now',
    kind: 'qualifier',
    english: ['now', 'current', 'currently'],
    chinese: /现在|当前|此刻/,
  },
];

export const HOST_MATCH = {
  /** Score of a tool the message names. */
  named: 10,
  weight: { object: 2, action: 1, qualifier: 1, word: 1 } satisfies Record<ConceptKind | 'word', number>,
  /** Least keyword score for a match. */
  threshold: 2,
  /** Least keyword score when the message is also one of NovaShop's own questions. */
  overShopIntent: 4,
} as const;

/** Common English words that say nothing about what a tool does. */
const STOPWORDS = new Set([
  'about',
  'also',
  'call',
  'could',
  'does',
  'from',
  'give',
  'given',
  'have',
  'help',
  'info',
  'information',
  'into',
  'just',
  'like',
  'make',
  'more',
  'need',
  'only',
  'optional',
  'please',
  'provided',
  'result',
  'return',
  'should',
  'show',
  'some',
  'tell',
  'that',
  'their',
  'them',
  'then',
  'there',
  'they',
  'this',
  'tool',
  'using',
  'value',
  'want',
  'what',
  'when',
  'where',
  'which',
  'will',
  'with',
  'would',
  'your',
]);

export interface HostToolMatch {
  tool: ToolDefinition;
  /** The message names the tool. */
  named: boolean;
  /** `HOST_MATCH.named` when named, else the keyword score. */
  score: number;
  /** The concepts the message and the tool share, e.g. `['file', 'read']`. */
  concepts: string[];
  /** Other words of the tool's name or description the message contains. */
  words: string[];
  /** The message asks for another action than the tool's (read vs write). */
  conflict: boolean;
}

/** The host tools the message names or plainly asks for (rules above), in the order declared. */
export function matchHostTools(message: string, tools: readonly ToolDefinition[]): HostToolMatch[] {
  const hostTools = hostToolsIn(tools);
  if (hostTools.length === 0 || message.trim() === '') return [];
  const named = hostTools.filter((tool) => namesTool(message, tool.name));
  // Other tools are scored on the message without the named tools' names (read_file is not a file).
  const rest = named.reduce((text, tool) => withoutToolName(text, tool.name), message);
  const threshold = detectIntent(message) === 'unknown' ? HOST_MATCH.threshold : HOST_MATCH.overShopIntent;
  const scored = hostTools
    .filter((tool) => !named.includes(tool))
    .map((tool) => scoreHostTool(rest, tool))
    .filter((match) => isMatch(match, threshold));
  const best = Math.max(0, ...scored.map((match) => match.score));
  const kept = new Set(scored.filter((match) => match.score * 2 >= best));
  return hostTools.flatMap((tool): HostToolMatch[] => {
    if (named.includes(tool)) {
      return [{ tool, named: true, score: HOST_MATCH.named, concepts: [], words: [], conflict: false }];
    }
    const match = [...kept].find((candidate) => candidate.tool === tool);
    return match ? [match] : [];
  });
}

function isMatch(match: HostToolMatch, threshold: number): boolean {
  if (match.conflict || match.score < threshold) return false;
  const objectShared = match.concepts.some((id) => conceptById(id)?.kind === 'object');
  return objectShared || match.words.length > 0;
}

/** The keyword score of one tool for a message (no threshold applied). */
export function scoreHostTool(message: string, tool: ToolDefinition): HostToolMatch {
  const wanted = readProfile(message, true);
  const offered = toolProfile(tool);
  const concepts = [...wanted.concepts].filter((id) => offered.concepts.has(id));
  const words = [...wanted.words].filter((word) => offered.words.has(word));
  const score =
    concepts.reduce((sum, id) => sum + HOST_MATCH.weight[conceptById(id)?.kind ?? 'qualifier'], 0) +
    words.length * HOST_MATCH.weight.word;
  const actionsOf = (ids: ReadonlySet<string>) => [...ids].filter((id) => conceptById(id)?.kind === 'action');
  const toolActions = actionsOf(offered.concepts);
  const askedActions = actionsOf(wanted.concepts);
  const changes = toolActions.filter((id) => conceptById(id)?.changes === true);
  const conflict =
    (toolActions.length > 0 &&
      askedActions.length > 0 &&
      !askedActions.some((action) => toolActions.includes(action))) ||
    (changes.length > 0 && !changes.some((action) => askedActions.includes(action)));
  return { tool, named: false, score, concepts, words, conflict };
}

/** The concepts a tool's name and description carry: what it is for, at a glance. */
export function toolConcepts(tool: Pick<ToolDefinition, 'name' | 'description'>): ReadonlySet<string> {
  return toolProfile(tool).concepts;
}

interface Profile {
  concepts: Set<string>;
  words: Set<string>;
}

function toolProfile(tool: Pick<ToolDefinition, 'name' | 'description'>): Profile {
  return readProfile(`${foldName(tool.name)} ${tool.description ?? ''}`, false);
}

function readProfile(text: string, isMessage: boolean): Profile {
  const tokens = englishWords(text);
  const concepts = new Set<string>();
  for (const concept of HOST_CONCEPTS) {
    const english = concept.english.some((word) => tokens.includes(stem(word)));
    if (english || concept.chinese.test(text)) concepts.add(concept.id);
  }
  // A file name in the message (notes.txt, README.md) is a file.
  if (isMessage && fileTokensIn(text).length > 0) concepts.add('file');
  const conceptWords = new Set(HOST_CONCEPTS.flatMap((concept) => concept.english.map(stem)));
  const words = new Set(
    tokens.filter((word) => word.length >= 4 && !STOPWORDS.has(word) && !conceptWords.has(word)),
  );
  return { concepts, words };
}

function conceptById(id: string): HostConcept | undefined {
  return HOST_CONCEPTS.find((concept) => concept.id === id);
}

/** English words, lower case, with a plural `s` folded (`files` → `file`, `directories` → `directory`). */
function englishWords(text: string): string[] {
  return (
    splitCamel(text)
      .toLowerCase()
      .match(/[a-z][a-z']*/g) ?? []
  ).map((word) => stem(word.replace(/'s$/, '')));
}

function stem(word: string): string {
  const lower = word.toLowerCase();
  if (lower.length > 4 && lower.endsWith('ies')) return `${lower.slice(0, -3)}y`;
  if (lower.length > 4 && /(ch|sh|x)es$/.test(lower)) return lower.slice(0, -2);
  if (lower.length > 3 && lower.endsWith('s') && !lower.endsWith('ss')) return lower.slice(0, -1);
  return lower;
}
