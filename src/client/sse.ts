/**
 * A Server-Sent Events parser, pure: text goes in as it arrives (any chunking),
 * complete events come out. Follows the WHATWG event-stream rules that matter
 * here: `event`, `data` (joined by newlines), `id`, comments, CR/LF/CRLF.
 */

export interface SseEvent {
  readonly event: string;
  readonly data: string;
  /** The event's `id` field, when it had one. */
  readonly id?: string;
}

export class SseParser {
  #buffer = '';
  #event = '';
  #data: string[] = [];
  #id: string | undefined;

  /** Feeds text; returns the events it completed. */
  push(text: string): SseEvent[] {
    this.#buffer += text;
    const events: SseEvent[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.#buffer);
      if (!match) break;
      // A lone CR at the very end may be the first half of CRLF: wait for more.
      if (match[0] === '\r' && match.index === this.#buffer.length - 1) break;
      const line = this.#buffer.slice(0, match.index);
      this.#buffer = this.#buffer.slice(match.index + match[0].length);
      const event = this.#line(line);
      if (event) events.push(event);
    }
    return events;
  }

  #line(line: string): SseEvent | undefined {
    if (line === '') {
      if (this.#data.length === 0) {
        this.#event = '';
        this.#id = undefined;
        return undefined;
      }
      const event: SseEvent = {
        event: this.#event || 'message',
        data: this.#data.join('\n'),
        ...(this.#id !== undefined ? { id: this.#id } : {}),
      };
      this.#event = '';
      this.#data = [];
      this.#id = undefined;
      return event;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.#event = value;
    else if (field === 'data') this.#data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.#id = value;
    return undefined;
  }
}
