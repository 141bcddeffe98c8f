/**
 * What the blocks say, in Simplified Chinese (the default) and English. A page with its own
 * translations spreads these tables into its own (the shipped page does), so one sentence lives in
 * one place; `RunstreamTextProvider`'s `messages` overrides any of them.
 */
export const blockMessagesZhCN = {
  'message.status.running': '回复中',
  'message.status.paused': '等待确认',
  'message.status.completed': '已完成',
  'message.status.cancelled': '已停止',
  'message.status.failed': '出错了',
  'message.status.interrupted': '已中断',
  'message.stoppedByUser': '你停止了这次回复',
  'message.interrupted': '本轮回复异常中断',
  'message.cancelled': '这次回复已停止',
  'block.reasoning.streaming': '思考中…',
  'block.reasoning.done': '思考了 {seconds} 秒',
  'block.reasoning.stopped': '思考（已停止）',
  'block.reasoning.interrupted': '思考（已中断）',
  'block.answer.stopped': '（已停止）',
  'block.answer.interrupted': '（已中断）',
  'block.tool.name': '工具',
  'block.tool.arguments': '参数',
  'block.tool.result': '结果',
  'block.tool.error': '错误',
  'block.tool.status.pending': '待执行',
  'block.tool.status.running': '运行中',
  'block.tool.status.awaiting_confirmation': '待确认',
  'block.tool.status.done': '完成',
  'block.tool.status.failed': '失败',
  'block.tool.status.rejected': '已拒绝',
  'block.tool.status.cancelled': '已取消',
  'block.tool.status.interrupted': '已中断',
  'block.confirm.approve': '确认',
  'block.confirm.reject': '取消',
  'block.confirm.deciding': '提交中…',
  'block.confirm.approved': '已确认',
  'block.confirm.rejected': '已拒绝',
  'block.confirm.expired': '已失效',
  'block.confirm.decidedAt': '{decision} · {time}',
  'block.confirm.pending': '等待确认',
  'block.error.title': '出错了',
  'block.text.status.streaming': '生成中',
  'block.text.status.done': '完成',
  'block.text.status.cancelled': '已停止',
  'block.text.status.interrupted': '已中断',
  'hint.max_iterations': '已达到最大迭代次数，正在生成当前执行结果的总结',
  'source.line': '第 {line} 行',
  'units.seconds': '{seconds} 秒',
  // A duration that rounds to nothing is said as what it is, never "0.0 秒".
  'units.underTenthSecond': '不到 0.1 秒',
} as const;

export type BlockMessageKey = keyof typeof blockMessagesZhCN;

export const blockMessagesEn: Record<BlockMessageKey, string> = {
  'message.status.running': 'Replying',
  'message.status.paused': 'Waiting for confirmation',
  'message.status.completed': 'Done',
  'message.status.cancelled': 'Stopped',
  'message.status.failed': 'Failed',
  'message.status.interrupted': 'Interrupted',
  'message.stoppedByUser': 'You stopped this reply',
  'message.interrupted': 'This reply was interrupted',
  'message.cancelled': 'This reply was stopped',
  'block.reasoning.streaming': 'Thinking…',
  'block.reasoning.done': 'Thought for {seconds} s',
  'block.reasoning.stopped': 'Thinking (stopped)',
  'block.reasoning.interrupted': 'Thinking (interrupted)',
  'block.answer.stopped': '(stopped)',
  'block.answer.interrupted': '(interrupted)',
  'block.tool.name': 'Tool',
  'block.tool.arguments': 'Arguments',
  'block.tool.result': 'Result',
  'block.tool.error': 'Error',
  'block.tool.status.pending': 'Pending',
  'block.tool.status.running': 'Running',
  'block.tool.status.awaiting_confirmation': 'Awaiting confirmation',
  'block.tool.status.done': 'Done',
  'block.tool.status.failed': 'Failed',
  'block.tool.status.rejected': 'Rejected',
  'block.tool.status.cancelled': 'Cancelled',
  'block.tool.status.interrupted': 'Interrupted',
  'block.confirm.approve': 'Confirm',
  'block.confirm.reject': 'Cancel',
  'block.confirm.deciding': 'Sending…',
  'block.confirm.approved': 'Confirmed',
  'block.confirm.rejected': 'Rejected',
  'block.confirm.expired': 'Expired',
  'block.confirm.decidedAt': '{decision} · {time}',
  'block.confirm.pending': 'Awaiting confirmation',
  'block.error.title': 'Something went wrong',
  'block.text.status.streaming': 'In progress',
  'block.text.status.done': 'Done',
  'block.text.status.cancelled': 'Stopped',
  'block.text.status.interrupted': 'Interrupted',
  'hint.max_iterations': 'Reached the step limit; summarising what has been done so far',
  'source.line': 'line {line}',
  'units.seconds': '{seconds} s',
  'units.underTenthSecond': 'under 0.1 s',
};

export type BlockLocale = 'zh-CN' | 'en';

export const blockMessages: Record<BlockLocale, Record<BlockMessageKey, string>> = {
  'zh-CN': blockMessagesZhCN,
  en: blockMessagesEn,
};

/** Fill `{name}` placeholders; an unknown placeholder stays visible rather than vanishing. */
export function formatMessage(template: string, params: Record<string, string | number> = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in params ? String(params[name]) : whole,
  );
}

/** 1234 ms → "1.2"; always one decimal so durations line up. */
export function formatSeconds(milliseconds: number): string {
  return (Math.max(0, milliseconds) / 1000).toFixed(1);
}
