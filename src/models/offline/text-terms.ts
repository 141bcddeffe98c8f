/**
 * How the offline model reads text without a dictionary or weights: Chinese as character bigrams
 * (维修单 → 维修, 修单: they match 维修单号 in a tool's description), English as words of three
 * letters or more with a plural folded, numbers as they are, and the actions a text asks for or a
 * tool performs (取消 / cancel, 查询 / check …) from a small bilingual table. Messages and tool
 * descriptions go through the same functions, so whatever they miss they miss on both sides.
 */

export interface ActionWord {
  id: string;
  chinese: RegExp;
  /** Lower-case words, compared after the plural is folded; `-ing` forms are nouns here (booking). */
  english: readonly string[];
}

/** What people ask tools to do. An action is matched only against another text's action. */
export const ACTIONS: readonly ActionWord[] = [
  {
    id: 'cancel',
    chinese: /取消|撤销|撤回|退订/,
    english: ['cancel', 'cancellation', 'revoke', 'abort', 'withdraw'],
  },
  {
    id: 'query',
    chinese: /查询|查看|查一下|查下|查查|看看|看一下|列出|进度|状态|到哪|在哪/,
    english: ['check', 'query', 'status', 'track', 'lookup', 'look', 'show', 'view', 'progress', 'list'],
  },
  {
    id: 'create',
    chinese: /创建|新建|下单|报修|登记|申请|提交|安排|预订|订购/,
    english: ['create', 'schedule', 'register', 'submit', 'add', 'book', 'apply', 'arrange'],
  },
  {
    id: 'change',
    chinese: /修改|更改|改约|改期|改成|改为|改到|变更|调整|更新/,
    english: ['change', 'modify', 'update', 'reschedule', 'edit', 'move', 'rename', 'switch'],
  },
  { id: 'delete', chinese: /删除|删掉|移除|清除/, english: ['delete', 'remove', 'erase'] },
  { id: 'refund', chinese: /退款|退钱|返还/, english: ['refund', 'reimburse'] },
  { id: 'send', chinese: /发送|发给|通知|提醒/, english: ['send', 'notify', 'email', 'remind'] },
  { id: 'pay', chinese: /付款|支付|缴费/, english: ['pay', 'payment'] },
];

/**
 * 预约 is a verb (预约维修, book a repair) or a noun (取消维修预约, cancel the booking): it counts as
 * `create` only when the text asks for no other action.
 */
const WEAK_CREATE = /预约/;

/** The actions a text asks for or a tool performs, e.g. `{cancel}` for 取消维修单 R-1001. */
export function actionsIn(text: string): Set<string> {
  const words = new Set(englishWords(text));
  const found = new Set<string>();
  for (const action of ACTIONS) {
    if (action.chinese.test(text) || action.english.some((word) => words.has(word))) found.add(action.id);
  }
  if (found.size === 0 && WEAK_CREATE.test(text)) found.add('create');
  return found;
}

/** The text with its action words taken out, so they are not counted again as content. */
export function withoutActions(text: string): string {
  let rest = text;
  for (const action of ACTIONS) rest = rest.replace(new RegExp(action.chinese.source, 'g'), ' ');
  const english = new Set(ACTIONS.flatMap((action) => action.english));
  return rest.replace(/[A-Za-z][A-Za-z']*/g, (word) => (english.has(stem(word)) ? ' ' : word));
}

/**
 * Words that say nothing about what a text is about: question forms, pronouns, particles. Cut out
 * of Chinese before it is read as bigrams (longer forms first, so 怎么样 goes before 怎么).
 */
const CHINESE_FILLER =
  /请问|麻烦|帮忙|帮我|一下|我想知道|想知道|是怎样的|是什么样的|怎么样|怎么|怎样|如何|为什么|为何|什么|多少|多久|哪些|哪个|哪里|是不是|是否|能不能|能否|可不可以|可以|有没有|会不会|要不要|我们|你们|他们|这个|那个|一个|我的|你的|您|我|你|他|她|它|的|了|吗|呢|吧|啊|呀|么|嘛|是|在|有|和|与|及|或|把|被|给|这|那|要|想|会|还|都|就|也|再|又|请/g;

const ENGLISH_STOPWORDS = new Set([
  'the',
  'and',
  'for',
  'with',
  'you',
  'your',
  'yours',
  'our',
  'ours',
  'this',
  'that',
  'these',
  'those',
  'what',
  'when',
  'where',
  'which',
  'who',
  'whom',
  'whose',
  'why',
  'how',
  'can',
  'could',
  'would',
  'should',
  'will',
  'shall',
  'may',
  'might',
  'must',
  'please',
  'help',
  'want',
  'need',
  'like',
  'about',
  'from',
  'into',
  'onto',
  'does',
  'did',
  'done',
  'are',
  'was',
  'were',
  'has',
  'have',
  'had',
  'been',
  'being',
  'its',
  'there',
  'their',
  'them',
  'they',
  'then',
  'than',
  'also',
  'just',
  'some',
  'any',
  'all',
  'not',
  'but',
  'tool',
  'call',
  'use',
  'using',
  'only',
  'one',
  'out',
  'let',
  'know',
  'tell',
  'give',
  'make',
  'hello',
  'thank',
  'thanks',
  'mine',
  'here',
  'now',
  'get',
  'got',
  'yet',
  'still',
  'very',
  'much',
  'many',
  'more',
  'most',
  'other',
  'given',
  'returns',
  'optional',
  'required',
]);

/**
 * The content terms of a text: Chinese bigrams (a lone character stands for itself), English words of
 * three letters or more with a plural folded, and numbers (unless `numbers` is false: a tool's
 * description gives numbers as examples, 如 R-1001, which say nothing about what it does).
 */
export function termsOf(text: string, options: { numbers?: boolean } = {}): Set<string> {
  const normal = text.normalize('NFKC');
  const terms = new Set<string>();
  const chinese = normal.replace(CHINESE_FILLER, ' ');
  for (const run of chinese.match(/\p{Script=Han}+/gu) ?? []) {
    const characters = Array.from(run);
    if (characters.length === 1) terms.add(run);
    for (let index = 0; index + 1 < characters.length; index += 1) {
      terms.add(`${characters[index]}${characters[index + 1]}`);
    }
  }
  for (const word of englishWords(normal)) {
    if (word.length >= 3 && !ENGLISH_STOPWORDS.has(word)) terms.add(word);
  }
  if (options.numbers === false) return terms;
  for (const number of normal.match(/\d+(?:\.\d+)?/g) ?? []) terms.add(number);
  return terms;
}

/** The terms both sets hold. */
export function sharedTerms(left: ReadonlySet<string>, right: ReadonlySet<string>): string[] {
  return [...left].filter((term) => right.has(term));
}

/** `cancel_repair`, `cancel-repair`, `cancelRepair` → `cancel repair`. */
export function foldName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/[_\-\s]+/g, ' ')
    .trim();
}

/** English words, lower case, camelCase split, a plural `s` folded (`repairs` → `repair`). */
export function englishWords(text: string): string[] {
  return (
    text
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .match(/[a-z][a-z']*/g) ?? []
  ).map((word) => stem(word.replace(/'s$/, '')));
}

function stem(word: string): string {
  const lower = word.toLowerCase();
  if (lower.length > 4 && lower.endsWith('ies')) return `${lower.slice(0, -3)}y`;
  if (lower.length > 4 && /(ch|sh|x|ss)es$/.test(lower)) return lower.slice(0, -2);
  if (lower.length > 3 && lower.endsWith('s') && !/(ss|us|is)$/.test(lower)) return lower.slice(0, -1);
  return lower;
}

const GREETING =
  /你好|您好|嗨|哈喽|哈啰|在吗|在不在|早上好|上午好|中午好|下午好|晚上好|早安|晚安|谢谢|多谢|感谢|再见|拜拜|好的|好滴|收到|明白了|知道了|嗯+|哦+|\b(?:hi|hello|hey|hiya|thanks|thank you|thx|ty|bye|goodbye|good (?:morning|afternoon|evening|night)|ok|okay|sure|cool|great|got it|yes|no|there|everyone|again|so much|a lot)\b/giu;

const ABOUT_ASSISTANT =
  /你是谁|你叫什么|你能做什么|你可以做什么|你会什么|能帮我做什么|有什么功能|\bwho are you\b|\bwhat can you do\b|\bwhat do you do\b|\bwhat are you\b/i;

/** Only greetings, thanks or acknowledgements: nothing to search or do. */
export function isSmallTalk(text: string): boolean {
  if (ABOUT_ASSISTANT.test(text)) return true;
  const greeted = text.replace(GREETING, ' ');
  return greeted !== text && greeted.replace(/[\p{P}\p{S}\s]/gu, '') === '';
}

const QUESTION_WORDS =
  /吗|呢|什么|怎么|怎样|如何|为什么|为何|多少|多久|几[天个次号点时]|哪|是否|能否|能不能|可不可以|可以.*吗|有没有|是不是|会不会|要不要|请问|(?:^|[.!?,;]\s*)(?:what|how|when|where|why|which|who|whom|whose|can|could|is|are|do|does|did|should|will|would|may|am)\b/i;

/** The text asks something: a question mark or a question word. */
export function isQuestion(text: string): boolean {
  return /[?？]/.test(text) || QUESTION_WORDS.test(text);
}

/** It asks how something is done (怎么取消, how do I cancel): an explanation, not the deed itself. */
export function isHowTo(text: string): boolean {
  return /怎么|怎样|如何|流程|步骤|\bhow (?:do|can|to|should|would|does)\b|\bwhat(?:'s| is) the (?:process|procedure)\b/i.test(
    text,
  );
}

/** Tokens made of Latin letters, digits and the marks identifiers use (`R-1001`, `SN_42`, `a.b@c.d`). */
export function tokensOf(text: string): string[] {
  return (text.match(/[A-Za-z0-9][A-Za-z0-9_.:/#@+-]*/g) ?? [])
    .map((token) => token.replace(/[.:/#@+-]+$/, ''))
    .filter((token) => token !== '');
}

/** The text names something by an identifier: a token with a digit of three or more characters. */
export function hasIdentifier(text: string): boolean {
  return tokensOf(text).some((token) => /\d/.test(token) && token.length >= 3);
}
