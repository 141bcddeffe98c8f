import { createContext, type ReactNode, useContext, useMemo } from 'react';
import { type BlockLocale, type BlockMessageKey, blockMessages, formatMessage } from './block-messages.ts';

/** How the blocks look up a sentence: the locale and `t`, which fills `{placeholders}`. */
export interface BlockText {
  locale: BlockLocale;
  t(key: BlockMessageKey, params?: Record<string, string | number>): string;
}

export interface RunstreamTextProviderProps {
  /** Default `zh-CN`. */
  locale?: BlockLocale;
  /** Sentences of your own, over the locale's. */
  messages?: Partial<Record<BlockMessageKey, string>>;
  children?: ReactNode;
}

function blockText(locale: BlockLocale, messages?: Partial<Record<BlockMessageKey, string>>): BlockText {
  const table = messages === undefined ? blockMessages[locale] : { ...blockMessages[locale], ...messages };
  return { locale, t: (key, params) => formatMessage(table[key], params) };
}

/** Without a provider the blocks speak Simplified Chinese, the product's default language. */
const BlockTextContext = createContext<BlockText>(blockText('zh-CN'));

/** The language (and any sentences of your own) of every runstream block below it. */
export function RunstreamTextProvider({ locale = 'zh-CN', messages, children }: RunstreamTextProviderProps) {
  const value = useMemo(() => blockText(locale, messages), [locale, messages]);
  return <BlockTextContext.Provider value={value}>{children}</BlockTextContext.Provider>;
}

export function useBlockText(): BlockText {
  return useContext(BlockTextContext);
}
