import { describe, expect, it } from 'vitest';
import { SseParser } from './sse.js';

describe('SseParser', () => {
  it('parses events split anywhere, with ids, comments and every line ending', () => {
    const text =
      'retry: 2000\n\n: keep-alive\n\nid: 3\nevent: result\ndata: {"a":1}\n\nevent: progress\r\ndata: {"b":2}\r\n\r\nevent: done\rdata: x\rdata: y\r\r\n';
    for (const size of [1, 2, 5, 7, text.length]) {
      const parser = new SseParser();
      const events = [];
      for (let i = 0; i < text.length; i += size) events.push(...parser.push(text.slice(i, i + size)));
      expect(events).toEqual([
        { event: 'result', data: '{"a":1}', id: '3' },
        { event: 'progress', data: '{"b":2}' },
        { event: 'done', data: 'x\ny' },
      ]);
    }
  });

  it('keeps an unfinished event until its blank line arrives', () => {
    const parser = new SseParser();
    expect(parser.push('event: result\ndata: 1\n')).toEqual([]);
    expect(parser.push('\n')).toEqual([{ event: 'result', data: '1' }]);
    expect(parser.push('data: plain\n\n')).toEqual([{ event: 'message', data: 'plain' }]);
  });
});
