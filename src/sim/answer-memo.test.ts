import { describe, expect, it } from 'vitest';
import { AnswerMemo } from './answer-memo.js';

const bytes = (s: string) => s.length;

describe('AnswerMemo', () => {
  it('makes a value once and gives the same one for the same key', () => {
    const memo = new AnswerMemo<string>(100, bytes);
    let made = 0;
    const make = () => `v${++made}`;
    expect(memo.get('a', make)).toBe('v1');
    expect(memo.get('a', make)).toBe('v1');
    expect(memo.get('b', make)).toBe('v2');
    expect(made).toBe(2);
  });

  it('drops the least recently used values beyond its bytes', () => {
    const memo = new AnswerMemo<string>(10, bytes);
    memo.get('a', () => 'aaaa');
    memo.get('b', () => 'bbbb');
    memo.get('a', () => 'new'); // a is now the most recent
    memo.get('c', () => 'cccc'); // 12 bytes: b goes
    expect(memo.bytes).toBe(8);
    expect(memo.get('a', () => 'again')).toBe('aaaa');
    expect(memo.get('b', () => 'again')).toBe('again');
  });

  it('keeps nothing larger than its bytes, and nothing at 0', () => {
    const big = new AnswerMemo<string>(3, bytes);
    expect(big.get('a', () => 'four')).toBe('four');
    expect(big.size).toBe(0);
    const none = new AnswerMemo<string>(0, bytes);
    none.get('a', () => 'x');
    expect(none.get('a', () => 'y')).toBe('y');
  });
});
