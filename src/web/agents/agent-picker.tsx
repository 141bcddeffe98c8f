import { useId } from 'react';
import type { AgentSummary } from '../../client/index.ts';
import { useI18n } from '../i18n/index.ts';

export interface AgentPickerProps {
  agents: readonly AgentSummary[];
  /** The agent shown as chosen: the one of what is on screen, or of the next new conversation. */
  selectedId: string | undefined;
  disabled: boolean;
  onSelect(agentId: string): void;
}

/**
 * Which assistant the next new conversation talks to, when the server runs more than one: a plain
 * labelled `<select>`, so keyboards and screen readers get the platform's own control. Nothing at all
 * for a single agent.
 */
export function AgentPicker({ agents, selectedId, disabled, onSelect }: AgentPickerProps) {
  const { t } = useI18n();
  const id = useId();
  if (agents.length < 2) return null;
  const selected = agents.find((agent) => agent.id === selectedId);
  return (
    <div className="agent-picker">
      <label htmlFor={id}>{t('agents.label')}</label>
      <select
        id={id}
        data-testid="agent-picker"
        value={selected?.id ?? agents[0]?.id}
        disabled={disabled}
        onChange={(event) => onSelect(event.currentTarget.value)}
      >
        {agents.map((agent) => (
          <option key={agent.id} value={agent.id} title={agent.description}>
            {agent.name}
          </option>
        ))}
      </select>
      {selected?.description !== undefined && (
        <p className="muted agent-description">{selected.description}</p>
      )}
    </div>
  );
}
