import type { Notice } from '../../react/index.ts';
import type { I18n } from '../i18n/index.ts';
import { type MessageKey, zhCN } from '../i18n/messages.ts';

/** A notice in the page's language: our translation for codes we know, else the sentence it came with. */
export function noticeText(notice: Notice, t: I18n['t']): string {
  const key = `error.${notice.code}`;
  if (!(key in zhCN)) return notice.message;
  const translated = t(key as MessageKey);
  return translated === '' ? notice.message : translated;
}
