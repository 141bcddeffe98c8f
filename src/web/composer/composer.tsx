import { type KeyboardEvent, useId, useRef, useState } from 'react';
import { useI18n } from '../i18n/index.ts';

export interface ComposerProps {
  /** Why sending must wait, or `null`: a run streams, or a confirmation is pending. */
  blockedBy: 'loading' | 'streaming' | 'pending_confirmation' | 'waiting_for_host' | null;
  /** A sentence from the server or the network (e.g. the 409 for a pending confirmation). */
  notice: string | null;
  /** A run is streaming: the stop button replaces send. */
  canStop: boolean;
  stopping: boolean;
  onSend(text: string): Promise<boolean>;
  onStop(): void;
}

/** The server's limit for one message (docs/api.md). */
const MAX_MESSAGE_LENGTH = 8000;

/** The message box: Enter sends, Shift+Enter adds a line; Enter while an IME composes does neither. */
export function Composer({ blockedBy, notice, canStop, stopping, onSend, onStop }: ComposerProps) {
  const { t } = useI18n();
  const [text, setText] = useState('');
  const sending = useRef(false);
  const reasonId = useId();
  const inputId = useId();
  const reason =
    blockedBy === 'pending_confirmation'
      ? t('composer.pendingConfirmation')
      : blockedBy === 'streaming'
        ? t('composer.busy')
        : blockedBy === 'loading'
          ? t('chat.loading')
          : blockedBy === 'waiting_for_host'
            ? t('composer.waitingForHost')
            : null;

  const send = async () => {
    if (sending.current || blockedBy !== null || text.trim() === '') return;
    sending.current = true;
    const sent = text;
    setText('');
    try {
      const accepted = await onSend(sent);
      // Refused (e.g. 409): the text comes back unless the person already typed something new.
      if (!accepted) setText((current) => (current === '' ? sent : current));
    } finally {
      sending.current = false;
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing || event.keyCode === 229)
      return;
    event.preventDefault();
    void send();
  };

  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      {(notice !== null || reason !== null) && (
        <div className="composer-notes">
          {notice !== null && (
            <p role="alert" className="notice notice-warning" data-testid="composer-notice">
              {notice}
            </p>
          )}
          {reason !== null && notice !== reason && (
            <p id={reasonId} className="composer-reason muted" data-testid="composer-reason">
              {reason}
            </p>
          )}
        </div>
      )}
      <div className="composer-row">
        <label htmlFor={inputId} className="visually-hidden">
          {t('composer.label')}
        </label>
        <textarea
          id={inputId}
          data-testid="composer-input"
          rows={2}
          maxLength={MAX_MESSAGE_LENGTH}
          value={text}
          placeholder={t('composer.placeholder')}
          aria-describedby={reason !== null ? reasonId : undefined}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={onKeyDown}
        />
        {canStop ? (
          <button
            type="button"
            className="button-stop"
            data-testid="stop"
            onClick={onStop}
            disabled={stopping}
          >
            {stopping ? t('composer.stopping') : t('composer.stop')}
          </button>
        ) : (
          <button
            type="submit"
            className="button-send"
            data-testid="send"
            disabled={blockedBy !== null || text.trim() === ''}
          >
            {t('composer.send')}
          </button>
        )}
      </div>
    </form>
  );
}
