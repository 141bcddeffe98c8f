import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { RunstreamTextProvider } from '../../react/index.ts';
import { formatMessage, LOCALES, type Locale, type MessageKey } from './messages.ts';

export interface I18n {
  locale: Locale;
  setLocale(locale: Locale): void;
  t(key: MessageKey, params?: Record<string, string | number>): string;
}

const I18nContext = createContext<I18n | null>(null);

const STORAGE_KEY = 'runstream.locale';

function initialLocale(): Locale {
  const stored = globalThis.localStorage?.getItem(STORAGE_KEY);
  if (stored === 'en' || stored === 'zh-CN') return stored;
  // Simplified Chinese is the default; `?lang=en` switches for a shared link.
  const fromUrl = new URLSearchParams(globalThis.location?.search ?? '').get('lang');
  return fromUrl === 'en' ? 'en' : 'zh-CN';
}

export function I18nProvider({ children }: { children: ReactNode }) {
  const [locale, setLocaleState] = useState<Locale>(initialLocale);
  useEffect(() => {
    document.documentElement.lang = locale;
  }, [locale]);
  const setLocale = useCallback((next: Locale) => {
    globalThis.localStorage?.setItem(STORAGE_KEY, next);
    setLocaleState(next);
  }, []);
  const value = useMemo<I18n>(
    () => ({
      locale,
      setLocale,
      t: (key, params) => formatMessage(LOCALES[locale][key], params),
    }),
    [locale, setLocale],
  );
  // The blocks (runstream/react) speak the page's language from the same tables.
  return (
    <I18nContext.Provider value={value}>
      <RunstreamTextProvider locale={locale}>{children}</RunstreamTextProvider>
    </I18nContext.Provider>
  );
}

export function useI18n(): I18n {
  const value = useContext(I18nContext);
  if (value === null) throw new Error('useI18n needs an <I18nProvider> above it');
  return value;
}
