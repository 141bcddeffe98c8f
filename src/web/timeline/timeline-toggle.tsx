import { useId, useState } from 'react';
import type { Message } from '../../protocol/index.ts';
import { useI18n } from '../i18n/index.ts';
import { RunTimeline } from './run-timeline.tsx';

export interface TimelineToggleProps {
  message: Message;
  /** The clock, for the timeline of a run still going. */
  now: number;
}

/**
 * The page's addition at the end of an assistant message: a button that shows the run's timeline
 * under it. Nothing for a message without blocks.
 */
export function TimelineToggle({ message, now }: TimelineToggleProps) {
  const { t } = useI18n();
  const [shown, setShown] = useState(false);
  const timelineId = useId();
  if (message.blocks.length === 0) return null;
  return (
    <>
      <div className="assistant-toolbar">
        <button
          type="button"
          className="assistant-timeline-toggle"
          aria-expanded={shown}
          aria-controls={shown ? timelineId : undefined}
          onClick={() => setShown((value) => !value)}
        >
          {t('timeline.show')}
        </button>
      </div>
      {shown && <RunTimeline id={timelineId} message={message} now={now} />}
    </>
  );
}
