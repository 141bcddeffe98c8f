/**
 * Identifiers a shopper may quote: SKUs and policy, invoice or coupon codes (letters and digits in
 * hyphenated groups: NS-X2-BLK-M, POL-RET-001), letter-digit codes (INV2026001), and order numbers
 * (five or more digits: 88235). Matching is exact after width and case folding, so ＮＳ－Ｘ２－ＢＬＫ－Ｍ
 * and ns-x2-blk-m are NS-X2-BLK-M, but NS-X2-BLK-L never is.
 */
const IDENTIFIER =
  /(?<![A-Z0-9-])(?:[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+|[A-Z]{2,}[0-9]{3,}[A-Z0-9]*|[0-9]{5,})(?![A-Z0-9-])/g;

export function normalizeIdentifierText(text: string): string {
  // NFKC folds full-width letters, digits and the full-width hyphen; the dash variants are folded too.
  return text
    .normalize('NFKC')
    .replace(/[‐‑‒–—―－]/g, '-')
    .toUpperCase();
}

export function extractIdentifiers(text: string): string[] {
  const found = new Set<string>();
  for (const match of normalizeIdentifierText(text).matchAll(IDENTIFIER)) found.add(match[0]);
  return [...found];
}
