import { describe, expect, it } from 'vitest';
import {
  HOST_CONCEPTS,
  HOST_MATCH,
  hostToolsIn,
  isHostToolName,
  matchHostTools,
  scoreHostTool,
} from './host-intent.ts';
import { isEnglish, namesTool, withoutToolName } from './message-readers.ts';
import {
  GET_WEATHER,
  LIST_DIRECTORY,
  LOCAL_TIME,
  NOVASHOP_TOOLS,
  READ_FILE,
  STOCK_PRICE,
  WRITE_FILE,
} from './test-support/host-tools.ts';

const tools = [...NOVASHOP_TOOLS, READ_FILE, LOCAL_TIME, WRITE_FILE];

function matched(message: string, offered = tools): string[] {
  return matchHostTools(message, offered).map((match) => match.tool.name);
}

describe('host tools', () => {
  it("are the request's tools that are not NovaShop's own", () => {
    expect(hostToolsIn(tools).map((tool) => tool.name)).toEqual(['read_file', 'local_time', 'write_file']);
    for (const name of ['load_skill', 'query_order', 'cancel_order', 'search_knowledge']) {
      expect(isHostToolName(name)).toBe(false);
    }
    expect(isHostToolName('read_file')).toBe(true);
  });

  it('NovaShop tools are never matched as host tools, even by name', () => {
    expect(matched('调用 query_order')).toEqual([]);
  });
});

describe('a message that names a host tool', () => {
  it.each([
    ['use read_file to read notes.txt', 'read_file'],
    ['Use READ-FILE on notes.txt', 'read_file'],
    ['call readFile please', 'read_file'],
    ['调用 local_time', 'local_time'],
    ['调用local_time看看', 'local_time'],
    ['local time', 'local_time'],
  ])('%s → %s', (message, name) => {
    expect(namesTool(message, name)).toBe(true);
    const [match] = matchHostTools(message, tools);
    expect(match).toMatchObject({ named: true, score: HOST_MATCH.named, tool: { name } });
  });

  it('is a name only when it stands alone', () => {
    expect(namesTool('spread_files', 'read_file')).toBe(false);
    expect(namesTool('read_filesystem', 'read_file')).toBe(false);
  });

  it('leaves the name and its lead-in out of the free text', () => {
    expect(withoutToolName('use read_file to read notes.txt', 'read_file')).toBe('read notes.txt');
    expect(withoutToolName('调用 local_time', 'local_time')).toBe('');
    expect(withoutToolName('请用 search_docs 工具来查 retry 策略', 'search_docs')).toBe('查 retry 策略');
  });
});

describe('a message that plainly asks for what a host tool does', () => {
  it.each([
    ['What time is it?', ['local_time']],
    ['what is the time now', ['local_time']],
    ['现在几点了', ['local_time']],
    ['东京现在几点？', ['local_time']],
    ['read the file notes.txt', ['read_file']],
    ["what's in notes.txt?", ['read_file']],
    ['帮我读一下 README.md 这个文件', ['read_file']],
    ['打开 docs/guide.md 看看', ['read_file']],
    ['write hello to notes.txt', ['write_file']],
    ['read notes.txt and tell me the local time', ['read_file', 'local_time']],
    ['读一下 notes.txt，再告诉我现在几点', ['read_file', 'local_time']],
  ])('%s → %j', (message, names) => {
    expect(matched(message)).toEqual(names);
  });

  it('scores shared concepts: an object 2, an action or qualifier 1', () => {
    expect(scoreHostTool('read the file notes.txt', READ_FILE)).toMatchObject({
      score: 3,
      concepts: ['file', 'read'],
      conflict: false,
    });
    expect(scoreHostTool('What time is it?', LOCAL_TIME)).toMatchObject({ score: 2, concepts: ['time'] });
  });

  it('counts other words of the description too', () => {
    expect(matchHostTools('what is the stock price of ACME?', [STOCK_PRICE])).toMatchObject([
      { tool: { name: 'quote_ticker' }, score: 2, words: ['stock', 'price'] },
    ]);
  });

  it('reads the Chinese in a Chinese description', () => {
    const tool = { name: 'now', description: '返回宿主电脑上的当前时间', parameters: {} };
    expect(matched('现在几点了', [tool])).toEqual(['now']);
  });

  it('does not call a tool for another action on the same thing', () => {
    expect(matched('read the file notes.txt')).not.toContain('write_file');
    expect(matched('列出 src/ 目录里的文件', [READ_FILE, LIST_DIRECTORY])).toEqual(['list_directory']);
    // A file name alone may be read, never overwritten.
    expect(matched('notes.txt')).toEqual(['read_file']);
  });

  it('matches the weather only when the host has a weather tool', () => {
    expect(matched('今天天气怎么样')).toEqual([]);
    expect(matched('今天天气怎么样', [...tools, GET_WEATHER])).toEqual(['get_weather']);
    expect(matched("what's the weather in Tokyo?", [...tools, GET_WEATHER])).toEqual(['get_weather']);
  });
});

describe('no host tool matches: the NovaShop scenarios go on', () => {
  it.each([
    '我的订单到哪了',
    '88235 现在什么状态',
    '我买的那块表还没发货的话，帮我取消吧，不想要了。',
    '这双鞋七天内能退吗？',
    '退款要多长时间',
    '下单后多久发货',
    'X2 偏小吗，我该买哪个码',
    'translate this text',
    '查看一下',
    '',
  ])('%s', (message) => {
    expect(matched(message)).toEqual([]);
  });

  it('a NovaShop question needs a stronger host match', () => {
    // 时间 alone would score 2; as a return question it needs HOST_MATCH.overShopIntent.
    expect(scoreHostTool('退货要多长时间', LOCAL_TIME).score).toBeLessThan(HOST_MATCH.overShopIntent);
    expect(matched('退货的时间怎么算')).toEqual([]);
  });

  it('no host tools in the request: nothing to match', () => {
    expect(matched('What time is it?', NOVASHOP_TOOLS)).toEqual([]);
  });
});

describe('the keyword table', () => {
  it('has unique ids and lower-case English words', () => {
    const ids = HOST_CONCEPTS.map((concept) => concept.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const concept of HOST_CONCEPTS) {
      for (const word of concept.english) expect(word).toBe(word.toLowerCase());
    }
  });
});

describe('isEnglish', () => {
  it.each([
    ['What time is it?', true],
    ['read notes.txt', true],
    ['现在几点了', false],
    ['帮我读一下 README.md', false],
    ['12345', false],
  ])('%s → %s', (message, english) => {
    expect(isEnglish(message)).toBe(english);
  });
});
