import { describe, expect, it } from 'vitest';
import { compose } from './dispatch.js';

type Step = (input: string) => Promise<string>;

describe('compose', () => {
  it('gives the core alone when there are no wrappers', async () => {
    const core: Step = async (input) => `core(${input})`;
    expect(compose<Step>([], core)).toBe(core);
  });

  it('runs the wrappers outermost first, each around the rest, the core innermost', async () => {
    const seen: string[] = [];
    const tag =
      (name: string) =>
      (next: Step): Step =>
      async (input) => {
        seen.push(`${name} in`);
        const out = await next(`${input}>${name}`);
        seen.push(`${name} out`);
        return `${name}(${out})`;
      };
    const core: Step = async (input) => {
      seen.push(`core ${input}`);
      return 'x';
    };
    const run = compose([tag('a'), tag('b')], core);
    expect(await run('in')).toBe('a(b(x))');
    expect(seen).toEqual(['a in', 'b in', 'core in>a>b', 'b out', 'a out']);
  });

  it('lets a wrapper answer without calling the rest', async () => {
    let called = false;
    const stop =
      (_next: Step): Step =>
      async () =>
        'stopped';
    const run = compose<Step>([stop], async () => {
      called = true;
      return 'core';
    });
    expect(await run('in')).toBe('stopped');
    expect(called).toBe(false);
  });
});
