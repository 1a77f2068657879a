import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { redactedLogger } from './log-redact.js';

describe('redactedLogger', () => {
  it('keeps cookies, authorization and sessions out of log lines, and the paths a caller adds', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = Fastify({ logger: redactedLogger({ level: 'trace', stream, redact: ['extra'] }) });
    app.log.info(
      {
        headers: { cookie: 'sid=SECRET-1', authorization: 'Bearer SECRET-2', accept: '*/*' },
        request: { headers: { cookie: 'sid=SECRET-3' } },
        session: 'SECRET-4',
        config: { sessions: 'SECRET-5', port: 3000 },
        extra: 'SECRET-6',
      },
      'line',
    );
    await app.close();
    const text = lines.join('');
    expect(text).toContain('"accept":"*/*"');
    expect(text).toContain('"port":3000');
    expect(text).not.toMatch(/SECRET-\d/);
  });

  it('leaves a logger that is off as it is', () => {
    expect(redactedLogger(false)).toBe(false);
    expect(redactedLogger(undefined)).toBeUndefined();
  });
});
