import type { LogFrame } from './log-face.ts';

/** A slab's size: big enough that a run's frames take few of them, small enough to waste little. */
const SLAB_BYTES = 64 * 1024;
const INITIAL_FRAMES = 256;

const encoder = new TextEncoder();
const EMPTY = new Uint8Array(0);
/** The offsets of a deferred frame not yet filled. */
const DEFERRED = -1;

/**
 * On Node, a slab is a Buffer: allocated without zeroing (every byte read was written first; a fresh
 * zeroed 64 KiB costs more than the frames written into it), and written by `Buffer#write`, which
 * needs no view and no result object per frame. Elsewhere, a Uint8Array and `TextEncoder`.
 */
const onNode = typeof Buffer === 'function';

function allocateSlab(size: number): Uint8Array {
  return onNode ? Buffer.allocUnsafeSlow(size) : new Uint8Array(size);
}

function writeUtf8(slab: Uint8Array, text: string, offset: number): number {
  return onNode
    ? (slab as Buffer).write(text, offset)
    : encoder.encodeInto(text, slab.subarray(offset)).written;
}

/**
 * The frames a face keeps, as UTF-8 in large append-only slabs, one after another. A frame per event
 * as its own string or byte array is an object per event for the garbage collector to copy while it
 * is young and to mark for as long as the run is kept; here a run's frames are a few slabs and three
 * typed arrays of offsets, and a frame read is a view of its slab.
 *
 * Frames are numbered from 0 in the order pushed; a missing frame (`null`, or empty) takes no bytes.
 * A frame may also be deferred (`defer`): numbered now, its bytes written later (`fill`), wherever the
 * store stands then; until filled it has no bytes and no size.
 */
export class KeptFrames {
  readonly #slabs: Uint8Array[] = [];
  #slab: Uint8Array = EMPTY;
  #used = 0;
  #slabOf = new Int32Array(INITIAL_FRAMES);
  #start = new Int32Array(INITIAL_FRAMES);
  #end = new Int32Array(INITIAL_FRAMES);
  #count = 0;

  get length(): number {
    return this.#count;
  }

  push(frame: LogFrame | null): void {
    if (this.#count === this.#start.length) this.#grow();
    const index = this.#count;
    this.#count += 1;
    this.#write(index, frame);
  }

  /** Number the next frame without its bytes yet: `fill` writes them. */
  defer(): void {
    if (this.#count === this.#start.length) this.#grow();
    const index = this.#count;
    this.#count += 1;
    this.#slabOf[index] = 0;
    this.#start[index] = DEFERRED;
    this.#end[index] = DEFERRED;
  }

  isDeferred(index: number): boolean {
    return index >= 0 && index < this.#count && this.#start[index] === DEFERRED;
  }

  /** Write the bytes of a deferred frame (once: a frame that is not deferred is left as it is). */
  fill(index: number, frame: LogFrame | null): void {
    if (this.isDeferred(index)) this.#write(index, frame);
  }

  #write(index: number, frame: LogFrame | null): void {
    if (frame === null || frame.length === 0) {
      this.#slabOf[index] = Math.max(0, this.#slabs.length - 1);
      this.#start[index] = this.#used;
      this.#end[index] = this.#used;
      return;
    }
    // A UTF-16 code unit takes at most 3 bytes of UTF-8 (a surrogate pair, 2 units, takes 4).
    const most = typeof frame === 'string' ? frame.length * 3 : frame.length;
    if (this.#slab.length - this.#used < most) this.#newSlab(most);
    const start = this.#used;
    if (typeof frame === 'string') {
      this.#used += writeUtf8(this.#slab, frame, start);
    } else {
      this.#slab.set(frame, start);
      this.#used += frame.length;
    }
    this.#slabOf[index] = this.#slabs.length - 1;
    this.#start[index] = start;
    this.#end[index] = this.#used;
  }

  /**
   * The frame's bytes (a view of its slab), `null` for a missing one (or one deferred and not yet
   * filled), `undefined` past the end.
   */
  at(index: number): Uint8Array | null | undefined {
    if (index < 0 || index >= this.#count) return undefined;
    const start = this.#start[index] as number;
    const end = this.#end[index] as number;
    if (start === end) return null;
    return (this.#slabs[this.#slabOf[index] as number] as Uint8Array).subarray(start, end);
  }

  #newSlab(atLeast: number): void {
    this.#slab = allocateSlab(Math.max(SLAB_BYTES, atLeast));
    this.#slabs.push(this.#slab);
    this.#used = 0;
  }

  #grow(): void {
    const size = this.#start.length * 2;
    const grown = (from: Int32Array) => {
      const to = new Int32Array(size);
      to.set(from);
      return to;
    };
    this.#slabOf = grown(this.#slabOf);
    this.#start = grown(this.#start);
    this.#end = grown(this.#end);
  }
}
