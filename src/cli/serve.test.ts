import { describe, expect, it } from 'vitest';
import { listenFailure } from './serve.js';

describe('listenFailure', () => {
  it('names the port or address and the setting to change', () => {
    expect(listenFailure({ code: 'EADDRINUSE' }, '127.0.0.1', 3000)).toBe(
      'port 3000 on 127.0.0.1 is in use (EADDRINUSE); choose another with --port or PORT',
    );
    expect(listenFailure({ code: 'EACCES' }, '0.0.0.0', 80)).toBe(
      'port 80 on 0.0.0.0 needs privileges (EACCES); choose one above 1023 with --port or PORT',
    );
    expect(listenFailure({ code: 'EADDRNOTAVAIL' }, '10.9.9.9', 3000)).toBe(
      '10.9.9.9 is not an address of this machine (EADDRNOTAVAIL); choose another with --host or HOST',
    );
  });

  it('leaves other errors alone', () => {
    expect(listenFailure(new Error('boom'), '127.0.0.1', 3000)).toBeUndefined();
    expect(listenFailure(undefined, '127.0.0.1', 3000)).toBeUndefined();
  });
});
