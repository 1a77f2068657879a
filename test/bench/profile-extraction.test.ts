/**
 * Case 10's pieces: the hit answers it times are the simulated web's, one per
 * platform of a default search, and timing them reads a profile from each
 * platform with `extract` rules.
 */
import { describe, expect, it } from 'vitest';
import { extractionCost, hitAnswers } from '../../bench/cases/profile-extraction.js';
import { loadPlatformSet } from '../../bench/platform-set.js';

describe('case 10: profile extraction', () => {
  const answers = hitAnswers(1);

  it('has a hit answer for every platform a default search covers', () => {
    expect(answers.length).toBe(loadPlatformSet('builtin', 1).searched.length);
  });

  it('times at least the hits asked for, and every ruled platform yields a profile', () => {
    const ruled = answers.filter((a) => a.platform.extract);
    const cost = extractionCost(ruled, ruled.length * 2);
    expect(cost.hits).toBeGreaterThanOrEqual(ruled.length * 2);
    expect(cost.profiles).toBe(ruled.length);
    expect(cost.cpuMsPer1000).toBeGreaterThan(0);
  });
});
