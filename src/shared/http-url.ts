/** `localhost:11434/v1` parses as a URL with the scheme `localhost:`; only http(s) can be fetched. */
export function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol } = new URL(text);
  return protocol === 'http:' || protocol === 'https:';
}
