import { type OfflineLanguage, say } from './offline-language.ts';

/**
 * Everything the offline model says, in Chinese and English. It names no business: the same model
 * serves any agent, so it speaks of "the knowledge" and "a human agent", never of a shop.
 */

export interface Capabilities {
  /** `search_knowledge` is offered. */
  knowledge: boolean;
  /** Some tool or skill can act on the user's behalf. */
  actions: boolean;
}

export function greeting(language: OfflineLanguage, can: Capabilities): string {
  if (can.knowledge && can.actions) {
    return say(
      language,
      '你好！我可以根据知识库回答问题，也可以帮你办理一些事情。请问有什么可以帮你？',
      'Hello! I can answer questions from the knowledge base and help you get some things done. What can I do for you?',
    );
  }
  if (can.knowledge) {
    return say(
      language,
      '你好！我可以根据知识库回答你的问题。请问想了解什么？',
      'Hello! I can answer your questions from the knowledge base. What would you like to know?',
    );
  }
  if (can.actions) {
    return say(
      language,
      '你好！我可以帮你办理一些事情。请问需要我做什么？',
      'Hello! I can help you get some things done. What would you like me to do?',
    );
  }
  return say(language, '你好！请问有什么可以帮你？', 'Hello! How can I help you?');
}

export function notUnderstood(language: OfflineLanguage): string {
  return say(
    language,
    '我没太明白你的意思。可以换个说法，直接告诉我你想问的问题或想办的事。',
    "I'm not sure what you mean. Could you put it another way, and tell me the question you have or what you'd like done?",
  );
}

export function nothingToSearch(language: OfflineLanguage): string {
  return say(
    language,
    '这个问题我这里没有可以查的资料，没法可靠地回答。你可以换个问题，或者告诉我想办的事。',
    "I have nothing to look this up in, so I can't answer it reliably. You could ask something else, or tell me what you'd like done.",
  );
}

export function noBasis(language: OfflineLanguage): string {
  return say(
    language,
    '我在现有的知识里没有找到能可靠回答这个问题的依据，为免说错就不猜了。你可以换个说法再问（比如说得更具体些），或者联系人工客服确认。',
    "I couldn't find a reliable basis for this in the knowledge I have, so I won't guess. You could rephrase the question (more specifically, for example), or check with a human agent.",
  );
}

export function searchFailed(language: OfflineLanguage, reason: string): string {
  return say(
    language,
    `知识检索没有成功：${sentence(reason, language)}请稍后再试，或者联系人工客服。`,
    `The knowledge search did not work: ${sentence(reason, language)} Please try again later, or ask a human agent.`,
  );
}

export function evidenceLead(language: OfflineLanguage): string {
  return say(language, '根据知识库里的内容：', 'According to the knowledge base: ');
}

export function evidenceMore(language: OfflineLanguage): string {
  return say(language, '相关的还有：', 'Also relevant:');
}

export function askMissing(language: OfflineLanguage, labels: readonly string[]): string {
  return say(
    language,
    `要办这件事，我还需要知道：${labels.join('、')}。请告诉我，我再继续。`,
    `To do this I still need: ${labels.join(', ')}. Please tell me and I'll carry on.`,
  );
}

export function cannotDo(language: OfflineLanguage): string {
  return say(
    language,
    '这件事我这边暂时没法直接办理。你可以换个说法，或者联系人工客服。',
    "I can't do that directly from here. You could put it another way, or ask a human agent.",
  );
}

export function skillFailed(language: OfflineLanguage, reason: string): string {
  return say(
    language,
    `办理这件事需要的手册没能加载：${sentence(reason, language)}所以没有继续，请稍后再试，或者联系人工客服。`,
    `The handbook this needs could not be loaded: ${sentence(reason, language)} So I stopped there; please try again later, or ask a human agent.`,
  );
}

export function rejected(language: OfflineLanguage): string {
  return say(
    language,
    '好的，这个操作没有执行。之后如果还需要，随时告诉我。',
    "OK, that action was not carried out. Just tell me if you'd like it done later.",
  );
}

export function failed(language: OfflineLanguage, reason: string): string {
  return say(
    language,
    `这一步没有成功：${sentence(reason, language)}`,
    `That did not go through: ${sentence(reason, language)}`,
  );
}

/** The reason as a sentence: with a full stop when it has none. */
function sentence(reason: string, language: OfflineLanguage): string {
  const text = reason.trim();
  if (/[。！？.!?]$/.test(text)) return text;
  return `${text}${/\p{Script=Han}/u.test(text) || language === 'zh-CN' ? '。' : '.'}`;
}

export function noResult(language: OfflineLanguage): string {
  return say(
    language,
    '没有收到这一步的结果，我没法确认它是否完成了，请稍后核对一下。',
    'No result came back for this step, so I cannot tell whether it was done. Please check it later.',
  );
}

export function searchReasoning(language: OfflineLanguage, question: string): string {
  return say(
    language,
    `用户问：「${question}」。先检索知识库，只依据检索到的原文回答，并注明出处。`,
    `The user asks: "${question}". Search the knowledge first, answer only from what it returns, and cite it.`,
  );
}

export function loadSkillReasoning(language: OfflineLanguage, skill: string): string {
  return say(
    language,
    `这件事要先看「${skill}」手册，加载后才有办理它的工具。`,
    `This needs the "${skill}" handbook first; loading it unlocks the tools for it.`,
  );
}

export function callReasoning(language: OfflineLanguage, tool: string, args: string): string {
  return say(
    language,
    `用 ${tool} 来办，参数取自用户的消息：${args}。`,
    `Use ${tool}, with arguments taken from the user's message: ${args}.`,
  );
}

export function missingReasoning(language: OfflineLanguage, tool: string, labels: readonly string[]): string {
  return say(
    language,
    `要用 ${tool}，但消息里没有${labels.join('、')}，先问用户，不猜。`,
    `${tool} needs ${labels.join(', ')}, which the message does not give: ask rather than guess.`,
  );
}
