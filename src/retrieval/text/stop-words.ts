/**
 * Tokens dropped by `analyze`: function words, question words, politeness, pronouns, demonstratives
 * and measure words that say nothing about which policy answers a question. The list is curated for
 * a shop help centre, not copied from a general-purpose list: words that carry shop meaning stay.
 *
 * Kept on purpose (NOT stop words):
 * - Negations 不, 无, 非, 未 (没/没有 fold into 未, and English not/no into 不, in the general glossary): 「不支持退货」,
 *   「未发货」 and 「没收到」 mean the opposite of the same words without them, and BM25 gives such
 *   frequent terms a low weight anyway, so keeping them costs little and can break a tie.
 * - 已 (已发货 vs 待发货), 前 and 后 (发货前 vs 发货后), 次 and 条 (第3次, 第3条), digits.
 * - Any surface form of the general glossary or a domain table (tests check that none is listed here).
 *
 * Dropped although they look meaningful: 内 / 以内 / 之内 / within ("七天内" and "7 个自然日内" must
 * meet on 7 and 天 alone), and question words about time or amount (多久, 多少, 什么时候): the
 * documents answer with numbers, never with the question word.
 */
const CHINESE_STOP_WORDS = `
的 地 得 之 了 着 过 吗 呢 吧 啊 呀 哦 喔 噢 嘛 哈 啦 呗 咯 嗯 哎 诶 唉 哇 嘞 咧 哒 滴 耶
我 我们 你 你们 您 您们 他 她 它 他们 她们 它们 咱 咱们 俺 自己 本人 人家 大家 别人
这 那 哪 此 该 其 这个 那个 哪个 这些 那些 哪些 这样 那样 这么 那么 这种 那种 哪种 这里 那里 哪里 这儿 那儿 哪儿 这边 那边 这次 那次 这款 那款 哪款 这件 那件 这双 那双 这只 那只 这位 这台 那台 这条 那条 这套 那套 这单 那单 这笔 那笔 这家 那家 这是 那是 就是 也是 还是 都是 只是
个 双 件 只 位 台 款 种 些 点儿 一点 一下 一下子 一些 一般 一般般
什么 啥 怎么 怎样 怎么样 怎么办 咋 咋办 咋样 如何 为什么 为啥 为何 干嘛 干什么 是否 是不是 能不能 可不可以 可以吗 行不行 行吗 好吗 对吗 有没有 会不会 要不要 能否 可否 多少 多久 多长 几 几个 什么时候 啥时候 何时 哪天 怎么回事 什么样
请问 请 麻烦 劳驾 想问 问问 问一下 请教 咨询 打扰 你好 您好 谢谢 感谢 多谢 亲 亲亲 在吗 在不在 哈喽 嗨 好的 好 嗯嗯 ok 谢
是 有 在 为 以 于 与 和 跟 同 及 以及 或 或者 或是 并 并且 且 而 而且 但 但是 可是 不过 然而 如果 假如 要是 若 因为 所以 因此 然后 接着 另外 此外 还有 即 即可 则 等 等等 之类 比如 例如 包括
把 被 给 让 叫 对 对于 关于 向 往 从 自 由 到 至 按 按照 根据 通过 经过 用 拿 将
就 都 也 还 又 再 才 只 仅 只有 只要 已然 刚 刚刚 马上 立刻 立即 一直 总是 经常 常常 往往 可能 也许 大概 应该 必须 需 需要 要 想 想要 会 能 能够 可 可以 得以 得 希望 打算 准备 觉得 认为 知道 看 看看 说 问 告诉 帮 帮我 帮忙 帮下 弄 搞 做 办 去 来 上 下 里 中 内 以内 之内 当中 其中
很 太 非常 特别 比较 挺 蛮 真 真的 有点 有些 十分 更 最 越 尤其 稍微 略 大约 左右 一定 肯定 确实 其实 到底 究竟 还是说
`;

const ENGLISH_STOP_WORDS = `
a an the this that these those it its it's i i'm me my mine myself we our ours us you your yours he him his she her they them their
is am are was were be been being do does did doing done have has had having get got getting
can could would will shall should may might must need want wanted wants like please pls thanks thank hi hello hey dear ok okay
what which who whom whose when where why how whether if then than so such too very just also only still even really quite
to of for in on at by with within into onto from about as and or but nor
any some all each every both either neither other another more most much many few lot lots
there here now soon yet ever again
don doesn didn isn aren wasn weren won wouldn couldn shouldn haven hasn hadn t ll ve re
`;

/** The curated stop list, Chinese and English (lower case, Simplified). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `${CHINESE_STOP_WORDS} ${ENGLISH_STOP_WORDS}`.split(/\s+/).filter((word) => word.length > 0),
);

export function isStopWord(token: string): boolean {
  return STOP_WORDS.has(token);
}
