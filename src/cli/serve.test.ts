import { describe, expect, it } from 'vitest';
import { listenFailure } from './serve.js';

const api = (port: number) => ({ setting: 'port', port }) as const;

describe('listenFailure', () => {
  it('names the port or address and the setting to change', () => {
    expect(listenFailure({ code: 'EADDRINUSE' }, '127.0.0.1', api(3000))).toBe(
      'port 3000 on 127.0.0.1 is in use (EADDRINUSE); choose another with --port or PORT',
    );
    expect(listenFailure({ code: 'EACCES' }, '0.0.0.0', api(80))).toBe(
      'port 80 on 0.0.0.0 needs privileges (EACCES); choose one above 1023 with --port or PORT',
    );
    expect(listenFailure({ code: 'EADDRNOTAVAIL' }, '10.9.9.9', api(3000))).toBe(
      '10.9.9.9 is not an address of this machine (EADDRNOTAVAIL); choose another with --host or HOST',
    );
  });

  it("names a worker's own port setting", () => {
    expect(listenFailure({ code: 'EADDRINUSE' }, '127.0.0.1', { setting: 'workerPort', port: 9101 })).toBe(
      'port 9101 on 127.0.0.1 is in use (EADDRINUSE); choose another with --worker-port or USERSCOUT_WORKER_PORT',
    );
  });

  it('leaves other errors alone', () => {
    expect(listenFailure(new Error('boom'), '127.0.0.1', api(3000))).toBeUndefined();
    expect(listenFailure(undefined, '127.0.0.1', api(3000))).toBeUndefined();
  });
});
