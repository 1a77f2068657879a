/**
 * The text of a body that arrives in byte chunks, decoded as UTF-8 only when it
 * is asked for. Chunks wait as bytes (outside the JavaScript heap) until then, so
 * a body read to its end becomes one string, made once, instead of a string per
 * chunk joined into a rope that the first scan copies again into one string: about
 * much less allocated on the heap per search. The text is the one
 * TextDecoder gives for the whole body, however it was cut into chunks.
 */
import { isAscii } from 'node:buffer';

/** The scratch buffer is kept up to this size; a larger body's chunks are joined in a buffer of their own. */
const SCRATCH_KEEP_BYTES = 1 << 20;

/**
 * Where waiting chunks are joined before they are decoded: one buffer for every body,
 * as decoding copies them out at once, so no buffer is allocated (and later freed by
 * the collector) per body.
 */
let scratch = Buffer.allocUnsafeSlow(0);

function joined(chunks: readonly Buffer[], bytes: number): Buffer {
  if (chunks.length === 1) return chunks[0]!;
  if (bytes > SCRATCH_KEEP_BYTES) return Buffer.concat(chunks, bytes);
  if (scratch.length < bytes)
    scratch = Buffer.allocUnsafeSlow(Math.min(SCRATCH_KEEP_BYTES, 2 ** Math.ceil(Math.log2(bytes))));
  let at = 0;
  for (const chunk of chunks) {
    scratch.set(chunk, at);
    at += chunk.length;
  }
  return scratch.subarray(0, bytes);
}

export class BodyText {
  /** Decoded text of the bytes before the waiting ones. */
  #text = '';
  #waiting: Buffer[] = [];
  #waitingBytes = 0;
  /** From the first bytes that are not ASCII on, a streaming decoder holds any partial character. */
  #decoder: TextDecoder | undefined;

  /** Adds bytes; nothing is decoded yet. */
  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#waiting.push(chunk);
    this.#waitingBytes += chunk.length;
  }

  /**
   * The text so far. Not `final`: a character whose bytes have not all arrived is
   * left out until they have. `final`: the body has ended, such a character is a
   * replacement character.
   */
  text(final = false): string {
    if (this.#waitingBytes > 0) {
      // Decoded before anything else can use the scratch buffer again.
      const bytes = joined(this.#waiting, this.#waitingBytes);
      this.#waiting = [];
      this.#waitingBytes = 0;
      // Most pages are ASCII: copied as they are, several times faster than TextDecoder.
      if (!this.#decoder && isAscii(bytes)) this.#text += bytes.toString('latin1');
      else {
        // A byte order mark is dropped at the start of a body only, as a decoder of the whole body does.
        this.#decoder ??= new TextDecoder('utf-8', { ignoreBOM: this.#text !== '' });
        this.#text += this.#decoder.decode(bytes, { stream: true });
      }
    }
    if (final && this.#decoder) {
      this.#text += this.#decoder.decode();
      this.#decoder = undefined;
    }
    return this.#text;
  }
}
