import * as undici from 'undici';
import { describe, expect, it } from 'vitest';
import { Agent, buildConnector, Client, decompressInterceptor, Pool, proxyAgents } from './undici-parts.js';

describe('undici parts', () => {
  it('are the very classes and functions undici exports (the files its index requires)', () => {
    expect(Agent).toBe(undici.Agent);
    expect(Pool).toBe(undici.Pool);
    expect(Client).toBe(undici.Client);
    expect(buildConnector).toBe(undici.buildConnector);
    expect(decompressInterceptor).toBe(undici.interceptors.decompress);
    expect(proxyAgents()).toEqual({
      ProxyAgent: undici.ProxyAgent,
      Socks5ProxyAgent: undici.Socks5ProxyAgent,
    });
  });
});
