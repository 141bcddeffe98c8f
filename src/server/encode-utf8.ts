const encoder = new TextEncoder();

/**
 * UTF-8 bytes of a frame. On Node, `Buffer.from` takes small strings out of a shared pool instead of
 * a fresh ArrayBuffer per call, which is most of what `TextEncoder` costs per event (allocation and
 * garbage collection); elsewhere, `TextEncoder`.
 */
export const encodeUtf8: (text: string) => Uint8Array =
  typeof Buffer === 'function' ? (text) => Buffer.from(text, 'utf8') : (text) => encoder.encode(text);
