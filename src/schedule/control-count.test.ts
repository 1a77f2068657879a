import { describe, expect, it } from 'vitest';
import { ControlCount } from './control-count.js';

describe('ControlCount', () => {
  it('counts each due control by one search: as many searches as identities it is due through', () => {
    const count = new ControlCount();
    // Alpha's control is due through two identities, Bravo's through one, Charlie's through none.
    const due = new Map([
      ['alpha', 2],
      ['bravo', 1],
      ['charlie', 0],
    ]);
    expect(count.count(due)).toEqual(['alpha', 'bravo']);
    expect(count.count(due)).toEqual(['alpha']);
    // Started together, later searches find them all counted.
    expect(count.count(due)).toEqual([]);
    expect(count.countedBy('alpha')).toBe(2);
  });

  it('counts a control again once a search counting it releases it, and forgets a platform none counts', () => {
    const count = new ControlCount();
    expect(count.count([['alpha', 1]])).toEqual(['alpha']);
    expect(count.count([['alpha', 1]])).toEqual([]);
    count.release('alpha');
    expect(count.countedBy('alpha')).toBe(0);
    expect(count.count([['alpha', 1]])).toEqual(['alpha']);
    // The due count is read at each search: a control now pending or standing is counted by none.
    count.release('alpha');
    expect(count.count([['alpha', 0]])).toEqual([]);
    expect(count.countedBy('alpha')).toBe(0);
  });
});
