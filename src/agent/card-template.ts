import { shownValue } from '../mcp/default-confirmation-card.ts';

/** `{serialNumber}`, `{address.city}`: a path into the call's input. */
const PLACEHOLDER = /\{([A-Za-z_$][\w$-]*(?:\.[\w$-]+)*)\}/g;

/** A template filled from a call's input, and whether every placeholder in it was missing. */
export interface FilledTemplate {
  text: string;
  /** It had placeholders and none of them had a value (an optional argument the call left out). */
  empty: boolean;
}

/**
 * Fill a card template over the call's input: each `{path}` becomes the value at that path (text as
 * it is, anything else as JSON), a missing one nothing. Anything else in the template stays as written.
 */
export function fillTemplate(template: string, input: unknown): FilledTemplate {
  let placeholders = 0;
  let missing = 0;
  const text = template.replace(PLACEHOLDER, (_whole, path: string) => {
    placeholders += 1;
    const value = valueAt(input, path.split('.'));
    if (value === undefined || value === null) {
      missing += 1;
      return '';
    }
    return shownValue(value);
  });
  return { text, empty: placeholders > 0 && missing === placeholders };
}

function valueAt(input: unknown, path: readonly string[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
