/** `localhost:11434/v1` parses as a URL with the scheme `localhost:`; only http(s) can be fetched. */
export function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol } = new URL(text);
  return protocol === 'http:' || protocol === 'https:';
}

/** A URL as shown in messages and logs: without the credentials or query a base URL might carry. */
export function describeEndpoint(endpoint: string): string {
  const url = new URL(endpoint);
  url.username = '';
  url.password = '';
  url.search = '';
  return url.href;
}
