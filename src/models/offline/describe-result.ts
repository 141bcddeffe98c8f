import { type OfflineLanguage, say } from './offline-language.ts';
import { isRecord } from './read-run.ts';

/**
 * A tool's result in a few readable lines: its `message` when it has one (the tool's own sentence,
 * e.g. 「维修预约 R-1001 已取消」), else its top-level fields as `- field：value` (lists by count or
 * their values, nested objects by their simple fields), else the text itself. Nothing is added that
 * the result does not say.
 */

const MAX_FIELDS = 8;
const MAX_TEXT = 300;

export function describeResult(value: unknown, language: OfflineLanguage): string {
  if (isRecord(value)) {
    if (typeof value.message === 'string' && value.message.trim() !== '') return value.message.trim();
    // An MCP tool's result: its text content is what the server says to a reader; the structured
    // copy beside it is for programs.
    if (typeof value.text === 'string' && value.text.trim() !== '' && isMcpResult(value))
      return clip(value.text.trim());
    const entries = Object.entries(value).filter(([, field]) => field !== undefined);
    if (entries.length === 0)
      return say(language, '操作已完成，没有返回更多信息。', 'Done; nothing more came back.');
    const separator = say(language, '：', ': ');
    const lines = entries
      .slice(0, MAX_FIELDS)
      .map(([key, field]) => `- ${key}${separator}${inline(field, language)}`);
    if (entries.length > MAX_FIELDS) {
      lines.push(
        say(
          language,
          `- 另有 ${entries.length - MAX_FIELDS} 项`,
          `- and ${entries.length - MAX_FIELDS} more`,
        ),
      );
    }
    return [say(language, '结果如下：', 'Here is what came back:'), ...lines].join('\n');
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return say(language, '没有查到任何记录。', 'Nothing was found.');
    const lines = value.slice(0, MAX_FIELDS).map((item) => `- ${inline(item, language)}`);
    const head = say(language, `共 ${value.length} 条：`, `${value.length} found:`);
    return [head, ...lines].join('\n');
  }
  if (value === null || value === undefined || value === '') {
    return say(language, '操作已完成，没有返回更多信息。', 'Done; nothing more came back.');
  }
  return clip(String(value));
}

/** A field on one line: a value, a list of values, or an object's simple fields. */
function inline(value: unknown, language: OfflineLanguage): string {
  if (value === null || value === undefined) return say(language, '（无）', '(none)');
  if (typeof value === 'boolean') return value ? say(language, '是', 'yes') : say(language, '否', 'no');
  if (typeof value !== 'object') return clip(String(value));
  if (Array.isArray(value)) {
    if (value.length === 0) return say(language, '（无）', '(none)');
    if (value.every((item) => item === null || typeof item !== 'object')) {
      return clip(value.map(String).join(say(language, '、', ', ')));
    }
    const first = value.slice(0, 3).map((item) => inline(item, language));
    const more =
      value.length > 3 ? say(language, ` 等 ${value.length} 项`, ` and ${value.length - 3} more`) : '';
    return `${first.join(say(language, '；', '; '))}${more}`;
  }
  const simple = Object.entries(value as Record<string, unknown>).filter(
    ([, field]) => field === null || typeof field !== 'object',
  );
  if (simple.length === 0) return '…';
  const separator = say(language, '：', ': ');
  const fields = simple
    .slice(0, 5)
    .map(([key, field]) => `${key}${separator}${inline(field, language)}`)
    .join(say(language, '，', ', '));
  return clip(say(language, `（${fields}）`, `(${fields})`));
}

function clip(text: string): string {
  const characters = Array.from(text.trim());
  return characters.length > MAX_TEXT ? `${characters.slice(0, MAX_TEXT).join('')}…` : characters.join('');
}

/** `{ text, structuredContent? }` and nothing else: what an MCP tool call gives the model. */
function isMcpResult(value: Record<string, unknown>): boolean {
  return Object.keys(value).every((key) => key === 'text' || key === 'structuredContent');
}
