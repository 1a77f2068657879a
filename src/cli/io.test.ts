import { describe, expect, it } from 'vitest';
import { colourWanted } from './io.js';

describe('colourWanted', () => {
  it('colours a terminal, not a pipe', () => {
    expect(colourWanted({}, true)).toBe(true);
    expect(colourWanted({}, false)).toBe(false);
  });

  it('respects NO_COLOR when it is not empty, and TERM=dumb', () => {
    expect(colourWanted({ NO_COLOR: '1' }, true)).toBe(false);
    expect(colourWanted({ NO_COLOR: '' }, true)).toBe(true);
    expect(colourWanted({ TERM: 'dumb' }, true)).toBe(false);
  });

  it('lets FORCE_COLOR decide either way, as Node reads it', () => {
    expect(colourWanted({ FORCE_COLOR: '1' }, false)).toBe(true);
    expect(colourWanted({ FORCE_COLOR: '' }, false)).toBe(true);
    expect(colourWanted({ FORCE_COLOR: '1', NO_COLOR: '1' }, false)).toBe(true);
    expect(colourWanted({ FORCE_COLOR: '0' }, true)).toBe(false);
    expect(colourWanted({ FORCE_COLOR: 'false' }, true)).toBe(false);
  });
});
