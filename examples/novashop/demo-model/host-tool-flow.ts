import type { ToolDefinition } from 'runstream';
import { type FittedArguments, fitArgumentsDetailed, kindOfName } from './fit-arguments.ts';
import { type HostToolMatch, isHostToolName, matchHostTools, toolConcepts } from './host-intent.ts';
import { isEnglish } from './message-readers.ts';
import { isRecord, type MadeCall, type ToolOutcome, type Transcript } from './transcript.ts';
import type { TurnPlan } from './turn-plan.ts';

/**
 * Host tools (`host-intent.ts`): the tools the host declared and runs itself. When the user's last
 * message names one or plainly asks for what it does, the demo model calls it (several in one turn
 * when several match), with arguments that fit its schema (`fit-arguments.ts`); the run then waits
 * for the host's output. The next turn answers from that output only, quoting it (long output cut
 * at `QUOTE_LIMIT` characters), or says politely that the host reported an error. It answers in
 * English when the user wrote English, else in Simplified Chinese.
 *
 * Returns undefined when this is not a host tool turn: the NovaShop scenarios go on as before.
 */
export function planHostTools(transcript: Transcript): TurnPlan | undefined {
  const hostCalls = transcript.calls.filter((call) => isHostToolName(call.name));
  if (hostCalls.length > 0) return answerFromOutputs(transcript, hostCalls);
  // A NovaShop scenario under way, or the summary turn: not the moment to start calling host tools.
  if (transcript.calls.length > 0 || transcript.visibleTools.size === 0) return undefined;
  const matches = matchHostTools(transcript.question, transcript.tools);
  if (matches.length === 0) return undefined;
  return callHostTools(transcript.question, matches);
}

/** At most this many characters of a tool's output are quoted. */
export const QUOTE_LIMIT = 800;

type HostKind =
  | 'read-file'
  | 'write-file'
  | 'list-directory'
  | 'time'
  | 'date'
  | 'weather'
  | 'search'
  | 'other';

interface Planned {
  tool: Pick<ToolDefinition, 'name' | 'description'>;
  fitted: FittedArguments;
}

function callHostTools(question: string, matches: readonly HostToolMatch[]): TurnPlan {
  const english = isEnglish(question);
  const planned: Planned[] = matches.map((match) => ({
    tool: match.tool,
    fitted: fitArgumentsDetailed(match.tool.parameters, question, { toolName: match.tool.name }),
  }));
  const ready = planned.filter((plan) => plan.fitted.missing.length === 0);
  const blocked = planned.filter((plan) => plan.fitted.missing.length > 0);
  const asks = blocked.map((plan) => askFor(plan, english));
  if (ready.length === 0) return { text: asks.join(english ? ' ' : '') };
  const names = ready.map((plan) => plan.tool.name);
  const wants = ready.map((plan) => phrase(plan.tool, plan.fitted.args, english).want);
  const actions = ready.map((plan) => phrase(plan.tool, plan.fitted.args, english).action);
  const reasoning = english
    ? `The user wants ${wants.join(' and ')}. ${
        names.length === 1
          ? `${names[0]} is a tool the host declared, so the host runs it.`
          : `${names.join(' and ')} are tools the host declared: one turn calls them in parallel and the host runs them.`
      }`
    : `用户${wants.join('，还')}，${
        names.length === 1
          ? `这是宿主声明的工具 ${names[0]}，交给宿主执行。`
          : `这些是宿主声明的工具（${names.join('、')}），一轮里并行调用，交给宿主执行。`
      }`;
  const text = english
    ? [`I'll ask the host to ${actions.join(' and ')}.`, ...asks].join(' ')
    : [`好的，我请宿主${actions.join('，并')}。`, ...asks].join('');
  return {
    reasoning,
    text,
    calls: ready.map((plan) => ({ name: plan.tool.name, args: plan.fitted.args })),
  };
}

function askFor(plan: Planned, english: boolean): string {
  const labels = plan.fitted.missing.map((path) => {
    const name = path.split(/[.[]/).at(-1) ?? path;
    const kind = kindOfName(name);
    if (kind === 'path')
      return english ? 'the file name or path (for example notes.txt)' : '文件名或路径（例如 notes.txt）';
    if (kind === 'url') return english ? 'the URL' : '网址';
    if (kind === 'city') return english ? 'the city' : '哪个城市';
    return english ? `the value of ${path}` : `${path} 的值`;
  });
  return english
    ? `To call the host's ${plan.tool.name}, I still need ${labels.join(' and ')}.`
    : `要调用宿主的 ${plan.tool.name}，还需要你告诉我${labels.join('和')}。`;
}

/** What the tool is for, from its name and description (the concepts of `host-intent.ts`). */
function kindOf(tool: Pick<ToolDefinition, 'name' | 'description'>): HostKind {
  // The name says what a tool is; the description may mention other things ("a file inside a
  // directory"), so it decides only when the name alone does not.
  const byName = kindFromConcepts(toolConcepts({ name: tool.name, description: '' }));
  return byName !== 'other' ? byName : kindFromConcepts(toolConcepts(tool));
}

function kindFromConcepts(concepts: ReadonlySet<string>): HostKind {
  const changes = ['write', 'run', 'delete'].some((id) => concepts.has(id));
  if (concepts.has('directory') || (concepts.has('list') && concepts.has('file'))) return 'list-directory';
  if (concepts.has('file') && !changes) return 'read-file';
  if (concepts.has('file') && concepts.has('write')) return 'write-file';
  if (concepts.has('time')) return 'time';
  if (concepts.has('date')) return 'date';
  if (concepts.has('weather')) return 'weather';
  if (concepts.has('search')) return 'search';
  return 'other';
}

/** The first string argument of a kind (`path` for a file, `timezone`, `city` …). */
function argumentOf(args: Record<string, unknown>, ...kinds: string[]): string | undefined {
  for (const [name, value] of Object.entries(args)) {
    if (typeof value === 'string' && value !== '' && kinds.includes(kindOfName(name))) return value;
  }
  return undefined;
}

function phrase(
  tool: Pick<ToolDefinition, 'name' | 'description'>,
  args: Record<string, unknown>,
  english: boolean,
): { want: string; action: string } {
  const path = argumentOf(args, 'path', 'directory');
  const zone = argumentOf(args, 'timezone');
  const city = argumentOf(args, 'city');
  const query = argumentOf(args, 'query');
  switch (kindOf(tool)) {
    case 'read-file':
      return english
        ? { want: `to read ${path ?? 'a file'}`, action: `read ${path ?? 'the file'}` }
        : { want: `要读取 ${path ?? '一个文件'}`, action: `读取 ${path ?? '这个文件'}` };
    case 'write-file':
      return english
        ? { want: `to write to ${path ?? 'a file'}`, action: `write to ${path ?? 'the file'}` }
        : { want: `要写入 ${path ?? '一个文件'}`, action: `写入 ${path ?? '这个文件'}` };
    case 'list-directory':
      return english
        ? {
            want: `to see what is in ${path ?? 'the folder'}`,
            action: `list the files in ${path ?? 'the folder'}`,
          }
        : { want: `要看 ${path ?? '目录'} 里有哪些文件`, action: `列出 ${path ?? '目录'} 里的文件` };
    case 'time':
      return english
        ? zone
          ? { want: `to know the time in ${zone}`, action: `check the time in ${zone}` }
          : { want: 'to know the local time', action: 'check the local time' }
        : zone
          ? { want: `想知道 ${zone} 的时间`, action: `查看 ${zone} 的时间` }
          : { want: '想知道本地时间', action: '查看本地时间' };
    case 'date':
      return english
        ? { want: "to know today's date", action: 'check the date' }
        : { want: '想知道今天的日期', action: '查看今天的日期' };
    case 'weather':
      return english
        ? {
            want: `to know the weather${city ? ` in ${city}` : ''}`,
            action: `check the weather${city ? ` in ${city}` : ''}`,
          }
        : { want: `想知道${city ?? ''}的天气`, action: `查询${city ?? ''}的天气` };
    case 'search':
      return english
        ? {
            want: query ? `to search for "${query}"` : 'to search',
            action: query ? `search for "${query}"` : 'search',
          }
        : { want: query ? `要搜索「${query}」` : '要搜索', action: query ? `搜索「${query}」` : '搜索' };
    case 'other':
      return english
        ? { want: `to use ${tool.name}`, action: `run ${tool.name}` }
        : { want: `要用 ${tool.name}`, action: `调用 ${tool.name}` };
  }
}

function answerFromOutputs(transcript: Transcript, calls: readonly MadeCall[]): TurnPlan {
  const english = isEnglish(transcript.question);
  const paragraphs = calls.map((call) => {
    const tool = transcript.tools.find((candidate) => candidate.name === call.name) ?? {
      name: call.name,
      description: '',
    };
    return describeOutput(call, tool, transcript.contents.get(call.id), english);
  });
  return { text: paragraphs.join('\n\n') };
}

function describeOutput(
  call: MadeCall,
  tool: Pick<ToolDefinition, 'name' | 'description'>,
  raw: string | undefined,
  english: boolean,
): string {
  const outcome = hostOutcome(call.outcome);
  const kind = kindOf(tool);
  const path = argumentOf(call.args, 'path', 'directory');
  const name = call.name;
  switch (outcome.kind) {
    case 'missing':
      return english ? `${name} has not returned a result yet.` : `${name} 还没有返回结果。`;
    case 'rejected': {
      const why = outcome.message;
      return english
        ? `The host did not run ${name}${why ? ` (${why})` : ''}.`
        : `宿主没有执行 ${name}${why ? `（${why}）` : ''}。`;
    }
    case 'failed': {
      const why = (outcome.message || outcome.code).trim();
      const hint =
        kind === 'read-file' || kind === 'write-file' || kind === 'list-directory'
          ? english
            ? `Please check that ${path ?? 'the path'} exists and is spelled right, and I can try again.`
            : `请确认 ${path ?? '路径'} 是否存在、有没有写对，我可以再试一次。`
          : english
            ? 'You can check and ask me to try again.'
            : '可以检查一下，再让我试一次。';
      return english
        ? `Sorry, the host could not run ${name}: ${endSentence(why, true)} ${hint}`
        : `抱歉，宿主执行 ${name} 时出错了：${endSentence(why, false)}${hint}`;
    }
    case 'done':
      return describeResult(kind, name, path, call.args, outcome.value, raw, english);
  }
}

function describeResult(
  kind: HostKind,
  name: string,
  path: string | undefined,
  args: Record<string, unknown>,
  value: unknown,
  raw: string | undefined,
  english: boolean,
): string {
  if (kind !== 'read-file' && kind !== 'write-file' && outputText(value, raw).trim() === '') {
    return english ? `${name} returned nothing.` : `${name} 没有返回任何内容。`;
  }
  switch (kind) {
    case 'read-file': {
      const text = fieldText(value, ['content', 'contents', 'text', 'data']) ?? outputText(value, raw);
      const label = path ?? (isRecord(value) && typeof value.path === 'string' ? value.path : undefined);
      const file = english
        ? label
          ? `The file ${label}`
          : 'The file'
        : label
          ? `文件 ${label} `
          : '这个文件';
      if (text.trim() === '') return english ? `${file} is empty.` : `${file}是空的。`;
      return english
        ? `${file} contains:\n${quote(text, english)}`
        : `${file}的内容是：\n${quote(text, english)}`;
    }
    case 'write-file': {
      const text = outputText(value, raw).trim();
      const file = path ?? (english ? 'the file' : '文件');
      const said = text === '' ? '' : english ? ` It says: ${text}` : `返回：${text}`;
      return english ? `The host wrote ${file}.${said}` : `宿主已写入 ${file}。${said}`;
    }
    case 'list-directory': {
      const text = outputText(value, raw);
      return english
        ? `The host lists these in ${path ?? 'the folder'}:\n${quote(text, english)}`
        : `宿主列出的 ${path ?? '目录'} 里的内容：\n${quote(text, english)}`;
    }
    case 'time':
    case 'date': {
      const moment =
        fieldText(value, MOMENT_FIELDS) ??
        (typeof value === 'string' ? value.trim() : outputText(value, raw));
      const zone = fieldText(value, ['timezone', 'timeZone', 'tz', 'zone']) ?? argumentOf(args, 'timezone');
      const inZone = zone && !moment.includes(zone) ? (english ? ` (${zone})` : `（${zone}）`) : '';
      const what = kind === 'time' ? (english ? 'local time' : '本地时间') : english ? 'date' : '日期';
      if (moment.includes('\n') || Array.from(moment).length > 200) {
        return english
          ? `The host reports the ${what}:\n${quote(moment, english)}`
          : `宿主报告的${what}：\n${quote(moment, english)}`;
      }
      return english
        ? `The host reports the ${what} as ${moment}${inZone}.`
        : `宿主报告的${what}是 ${moment}${inZone}。`;
    }
    default: {
      const text = outputText(value, raw);
      if (!text.includes('\n') && Array.from(text).length <= 160) {
        return english ? `${name} returned: ${text}` : `${name} 返回的结果是：${text}`;
      }
      return english
        ? `${name} returned:\n${quote(text, english)}`
        : `${name} 返回的结果是：\n${quote(text, english)}`;
    }
  }
}

const MOMENT_FIELDS = [
  'localTime',
  'local_time',
  'time',
  'datetime',
  'dateTime',
  'iso',
  'now',
  'date',
  'formatted',
  'text',
  'value',
] as const;

/**
 * Errors the host may report in other ways than `{"error": …}`: text that starts with `Error:` /
 * `错误：`, an MCP-style `{"isError": true}`, `{"success": false}`.
 */
function hostOutcome(outcome: ToolOutcome): ToolOutcome {
  if (outcome.kind !== 'done') return outcome;
  const value = outcome.value;
  if (
    typeof value === 'string' &&
    /^\s*(?:error|failed|failure|exception|错误|失败|出错)\s*[:：]/i.test(value)
  ) {
    return { kind: 'failed', code: 'host_tool_failed', message: value.trim() };
  }
  if (isRecord(value) && (value.isError === true || value.is_error === true || value.success === false)) {
    const message = fieldText(value, ['message', 'error', 'content', 'text']) ?? JSON.stringify(value);
    return { kind: 'failed', code: 'host_tool_failed', message };
  }
  return outcome;
}

/** The first of these fields that holds text. */
function fieldText(value: unknown, fields: readonly string[]): string | undefined {
  if (!isRecord(value)) return undefined;
  for (const field of fields) {
    const text = value[field];
    if (typeof text === 'string') return text;
  }
  return undefined;
}

/**
 * The output as the host wrote it: text as is, a JSON string as its text, JSON as sent (or indented,
 * when the runtime wrapped it as `{"status": "done", "result": …}`).
 */
function outputText(value: unknown, raw: string | undefined): string {
  if (typeof value === 'string') return value;
  if (raw !== undefined) {
    try {
      if (JSON.stringify(JSON.parse(raw)) === JSON.stringify(value)) return raw;
    } catch {
      return raw;
    }
  }
  return JSON.stringify(value, null, 2) ?? String(value);
}

/** The text in a fenced block, cut at `QUOTE_LIMIT` characters with a note saying so. */
function quote(text: string, english: boolean): string {
  const characters = Array.from(text.replace(/\s+$/, ''));
  const shown = characters.slice(0, QUOTE_LIMIT).join('');
  const longestRun = Math.max(2, ...[...shown.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = '`'.repeat(longestRun + 1);
  const block = `${fence}\n${shown}\n${fence}`;
  if (characters.length <= QUOTE_LIMIT) return block;
  const note = english
    ? `(The output is ${characters.length} characters long; this shows the first ${QUOTE_LIMIT}.)`
    : `（输出共 ${characters.length} 个字符，这里只显示前 ${QUOTE_LIMIT} 个。）`;
  return `${block}\n${note}`;
}

function endSentence(text: string, english: boolean): string {
  if (/[。！？.!?]$/.test(text)) return text;
  return english ? `${text}.` : `${text}。`;
}
