import type { ConfirmationRequest } from '../runtime/index.ts';

/** Characters of one argument a confirmation card shows. */
const MAX_VALUE_CHARS = 500;
/** Characters of a label taken from a property's description (a description may be a paragraph). */
const MAX_LABEL_CHARS = 60;

/** What the default card is made of: the tool as a person knows it, and its arguments' JSON Schema. */
export interface CardSubject {
  title: string;
  description: string;
  inputSchema?: Record<string, unknown>;
}

/**
 * The card a write tool shows when nobody wrote one: the tool's title and description and one row per
 * argument given, labelled by the argument's JSON-Schema `title`, else its `description`, and only
 * as a last resort its name. Nothing about how the tool is reached (MCP, a server name) is shown: the
 * person deciding cares about the action and its object, not the transport.
 */
export function defaultConfirmationCard(subject: CardSubject, args: unknown): ConfirmationRequest {
  const properties = propertiesOf(subject.inputSchema);
  const given = isRecord(args) ? args : {};
  // The schema's order first (the order its author meant), then anything else the call carried.
  const keys = [
    ...Object.keys(properties).filter((key) => key in given),
    ...Object.keys(given).filter((key) => !(key in properties)),
  ];
  return {
    title: subject.title,
    description: subject.description,
    details: keys
      .filter((key) => given[key] !== undefined)
      .map((key) => ({ label: argumentLabel(key, properties[key]), value: shownValue(given[key]) })),
  };
}

/** An argument's label: its schema `title`, else the first line of its `description`, else its name. */
export function argumentLabel(name: string, property: unknown): string {
  if (isRecord(property)) {
    if (typeof property.title === 'string' && property.title.trim() !== '') return property.title.trim();
    if (typeof property.description === 'string' && property.description.trim() !== '') {
      const line = property.description.trim().split('\n')[0]?.trim() ?? '';
      return line.length > MAX_LABEL_CHARS ? `${line.slice(0, MAX_LABEL_CHARS)}…` : line;
    }
  }
  return name;
}

/** A value as a card row shows it: text as it is, anything else as JSON, cut at 500 characters. */
export function shownValue(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text;
}

function propertiesOf(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  return schema !== undefined && isRecord(schema.properties) ? schema.properties : {};
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
