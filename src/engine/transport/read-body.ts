/**
 * Reads a fetch-style body stream into the classifier's view, as http.ts does with
 * undici's chunks: within the body cap, asking for a decision as the answer arrives,
 * and stopping (the stream cancelled) once there is one.
 */
import { BodyText } from '../verdict/body-text.js';
import type { ResponseView } from '../verdict/response-view.js';
import type { Exchange } from './http.js';

export interface AnswerHead {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly url: string;
  readonly redirected: boolean;
}

export async function readBody<D>(
  head: AnswerHead,
  body: ReadableStream<Uint8Array> | null,
  bodyCapBytes: number,
  decide: (view: ResponseView) => D | undefined,
): Promise<Exchange<D>> {
  const text = new BodyText();
  let bytesRead = 0;
  const view = (complete: boolean): ResponseView => ({
    ...head,
    get body() {
      return text.text(complete);
    },
    complete,
  });
  const first = decide(view(false));
  if (first !== undefined || !body) {
    await body?.cancel().catch(() => undefined);
    return first === undefined
      ? { view: view(true), bytesRead }
      : { view: view(false), bytesRead, decision: first };
  }
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { view: view(true), bytesRead };
      const room = bodyCapBytes - bytesRead;
      const part = value.length > room ? value.subarray(0, room) : value;
      bytesRead += part.length;
      text.push(Buffer.from(part.buffer, part.byteOffset, part.byteLength));
      if (bytesRead >= bodyCapBytes) return { view: view(true), bytesRead };
      const decision = decide(view(false));
      if (decision !== undefined) return { view: view(false), bytesRead, decision };
    }
  } finally {
    // The rest is not needed: the stream is cancelled rather than read to its end.
    reader.cancel().catch(() => undefined);
  }
}

/** Lower-case names, repeated headers joined with ', ', as ResponseView has them. */
export function headerRecord(headers: Iterable<[string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) {
    const key = name.toLowerCase();
    out[key] = out[key] === undefined ? value : `${out[key]}, ${value}`;
  }
  return out;
}
