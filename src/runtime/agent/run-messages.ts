/**
 * Every text the runtime shows a person (error blocks, notes) or the model (the max-steps hint,
 * the rejection note). An agent picks a language's table and may override any entry
 * (`defineAgent({ messages })`), so no user-facing sentence is hard-coded in the runtime.
 */
export interface RunMessages {
  /** Shown (a note) when the run reached its step limit and the model is asked to sum up. */
  maxStepsHint: string;
  /** The user turn that asks the model to sum up after the step limit. */
  summaryPrompt: string;
  /** The tool result the model reads for a call the person rejected. */
  toolRejected: string;
  /** An error block: the model's answer stopped at its output limit. */
  cutShortLength: string;
  /** An error block: the provider's content filter stopped the answer. */
  cutShortContentFilter: string;
  /** An error block: the model service failed; `{message}` is its error. */
  modelFailed: string;
  /** An error block: anything else failed the run; `{message}` is the error. */
  runFailed: string;
  /** An error block: a crash or a lost lease interrupted the run. */
  interrupted: string;
  /** An error block: the shared live log was unreachable, so the run was interrupted. */
  liveLogUnreachable: string;
  /** An error block: the end of a run could not be saved. */
  endingNotSaved: string;
  /** A tool call's error: it ran longer than `{timeoutMs}` milliseconds. */
  toolTimedOut: string;
  /** A tool call's error: its result had `{chars}` characters, more than `{limit}`. */
  toolResultTooLarge: string;
  /** The title of a `load_skill` tool block. */
  loadSkillTitle: string;
  /** A 409: a run of this conversation is still going. */
  runInProgress: string;
  /** A 409: the run waits for a confirmation. */
  confirmationPending: string;
  /** A 409: the run waits for the host's tool results. */
  toolResultsPending: string;
  /** A 409: this call was decided already. */
  alreadyDecided: string;
  /** An error block on approval: the agent changed since the run paused (a tool removed or changed). */
  agentChanged: string;
  /** The title of a new conversation. */
  newConversationTitle: string;
}

export type RunLanguage = 'zh-CN' | 'en';

export const RUN_MESSAGES: Readonly<Record<RunLanguage, RunMessages>> = {
  'zh-CN': {
    maxStepsHint: '已达到最大迭代次数，正在生成当前执行结果的总结',
    summaryPrompt: '请根据目前已有的工具结果，总结当前的执行情况并回答用户。',
    toolRejected: '用户拒绝了这个操作，未执行。',
    cutShortLength: '回答达到了模型单次输出的长度上限，后面的内容没有生成。',
    cutShortContentFilter: '模型服务的内容安全策略拦截了这次回答，内容可能不完整。',
    modelFailed: '模型服务出错，本轮回答已中断：{message}',
    runFailed: '本轮运行出错，已中断：{message}',
    interrupted: '本轮异常中断，请核对刚才提交的操作是否已经生效。',
    liveLogUnreachable: '实时事件通道暂时不可用，本轮已中断，请稍后重试。',
    endingNotSaved: '本轮的结尾没能保存下来，以上是保存下来的部分。',
    toolTimedOut: '工具执行超时（{timeoutMs} 毫秒）',
    toolResultTooLarge: '工具返回的结果过大（{chars} 字符，上限 {limit}），已丢弃',
    loadSkillTitle: '加载技能手册',
    runInProgress: '上一轮回答还在进行中，请稍候或先停止它',
    confirmationPending: '上一步操作还在等你确认，请先确认或取消',
    toolResultsPending: '上一步还在等待工具结果，请先提交工具结果或停止这一轮',
    alreadyDecided: '这个操作已经确认过了',
    agentChanged: '助手的配置在这一轮暂停后已经改变（{detail}），这个操作没有执行，请重新发起。',
    newConversationTitle: '新对话',
  },
  en: {
    maxStepsHint: 'Reached the step limit; summarising what has been done so far',
    summaryPrompt: 'Using the tool results so far, summarise what has been done and answer the user.',
    toolRejected: 'The user rejected this action; it was not carried out.',
    cutShortLength: "The answer reached the model's output limit; the rest was not generated.",
    cutShortContentFilter: "The model service's content filter stopped this answer; it may be incomplete.",
    modelFailed: 'The model service failed and this answer was interrupted: {message}',
    runFailed: 'This run failed and was interrupted: {message}',
    interrupted: 'This run was interrupted. Please check whether the action you just confirmed took effect.',
    liveLogUnreachable:
      'The live event channel is unavailable, so this run was interrupted. Please try again later.',
    endingNotSaved: 'The end of this run could not be saved; above is what was saved.',
    toolTimedOut: 'The tool timed out ({timeoutMs} ms)',
    toolResultTooLarge: 'The tool result was too large ({chars} characters, limit {limit}) and was dropped',
    loadSkillTitle: 'Load a handbook',
    runInProgress: 'The previous answer is still running; wait for it or stop it first',
    confirmationPending: 'The previous step is waiting for your confirmation; confirm or cancel it first',
    toolResultsPending: 'The previous step is waiting for tool results; submit them or stop this run first',
    alreadyDecided: 'This action has already been decided',
    agentChanged:
      'The assistant changed after this run paused ({detail}), so this action was not carried out. Please ask again.',
    newConversationTitle: 'New conversation',
  },
};

/** A language's table with an agent's overrides on top. */
export function runMessagesFor(
  language: RunLanguage = 'zh-CN',
  overrides: Partial<RunMessages> = {},
): RunMessages {
  const base = RUN_MESSAGES[language] ?? RUN_MESSAGES['zh-CN'];
  const merged = { ...base };
  for (const [key, value] of Object.entries(overrides) as [keyof RunMessages, string | undefined][])
    if (typeof value === 'string') merged[key] = value;
  return merged;
}

/** `{name}` placeholders replaced by `values` (unknown placeholders stay as they are). */
export function formatMessage(template: string, values: Readonly<Record<string, string | number>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in values ? String(values[name]) : whole,
  );
}
