/** Small formatting and statistics helpers for `scale-bench.ts`. */

export function percentile(samples: readonly number[], fraction: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

export const median = (samples: readonly number[]): number => percentile(samples, 0.5);

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

export const kb = (bytes: number): string => (bytes / 1024).toFixed(1);

/** A number with `digits` decimals and thousands separators. */
export const num = (value: number, digits = 0): string =>
  Number.isFinite(value)
    ? value.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : '–';

export const ratio = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(2)}×` : '–');

/** A plain-text table: the first `leftColumns` columns left-aligned, the others right-aligned. */
export function printTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  leftColumns = 1,
  indent = '   ',
): void {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    indent +
    cells
      .map((cell, column) =>
        column < leftColumns ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  console.log(line(header));
  console.log(indent + widths.map((width) => '-'.repeat(width)).join('  '));
  for (const row of rows) console.log(line(row));
}

/** A paragraph of notes, wrapped at 106 columns and indented. */
export function printNotes(text: string, indent = '   '): void {
  const words = text.split(/\s+/).filter((word) => word !== '');
  let line = '';
  for (const word of words) {
    if (line !== '' && indent.length + line.length + 1 + word.length > 106) {
      console.log(indent + line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') console.log(indent + line);
}
