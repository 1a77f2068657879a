import { describe, expect, it } from 'vitest';
import { BrowserDirectory } from './browser-directory.js';

describe("the process's browser directory", () => {
  it('lets one claimant launch a place, says where it is up, and frees it once per generation', () => {
    const directory = new BrowserDirectory(BrowserDirectory.createBuffer(2));
    expect(directory.places).toBe(2);
    expect(directory.read(0)).toEqual({ state: 'empty', generation: 0 });
    const generation = directory.claim(0);
    expect(generation).toBe(0);
    // A second claimant finds it being launched.
    expect(directory.claim(0)).toBeUndefined();
    expect(directory.read(0)).toEqual({ state: 'launching', generation: 0 });
    const endpoint = 'ws://127.0.0.1:40123/0123456789abcdef0123456789abcdef';
    expect(directory.publish(0, 0, endpoint, 4242)).toBe(true);
    expect(directory.read(0)).toEqual({ state: 'up', generation: 0, endpoint, pid: 4242 });
    expect(directory.read(1)).toEqual({ state: 'empty', generation: 0 });
    // Two threads see it die: the first frees it, the second changes nothing.
    expect(directory.release(0, 0)).toBe(true);
    expect(directory.release(0, 0)).toBe(false);
    expect(directory.read(0)).toEqual({ state: 'empty', generation: 1 });
    // A release naming the old browser leaves its replacement alone; a publish after a release is refused.
    expect(directory.claim(0)).toBe(1);
    expect(directory.release(0, 0)).toBe(false);
    expect(directory.release(0, 1)).toBe(true);
    expect(directory.publish(0, 1, endpoint, 1)).toBe(false);
    expect(directory.read(0)).toEqual({ state: 'empty', generation: 2 });
    expect(directory.generation(0)).toBe(2);
  });

  it('refuses a place it does not have, a buffer of the wrong size and an endpoint too long', () => {
    const directory = new BrowserDirectory(BrowserDirectory.createBuffer(1));
    expect(() => directory.read(1)).toThrow(RangeError);
    expect(() => BrowserDirectory.createBuffer(0)).toThrow(RangeError);
    expect(() => new BrowserDirectory(new SharedArrayBuffer(10))).toThrow(RangeError);
    expect(directory.claim(0)).toBe(0);
    expect(() => directory.publish(0, 0, `ws://${'x'.repeat(300)}`, 1)).toThrow(RangeError);
  });
});
