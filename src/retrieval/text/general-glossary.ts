/**
 * The default analyser's synonym table: general resources only, true of any Chinese shop's customer
 * service, written from general e-commerce knowledge and never from a corpus or its questions. A
 * shop's own vocabulary (brands, products, its policy wording) belongs in a per-domain file passed as
 * `synonyms` (e.g. src/domains/novashop/synonyms.txt). Same format as that file (see synonyms.ts).
 */
export const GENERAL_GLOSSARY = `
`;
