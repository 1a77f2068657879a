/** An outcome of platform `platformId` for the tests that read outcomes, with what a test is about added. */
import type { Outcome } from '../../src/engine/verdict/outcome.js';

export function outcomeOf(
  platformId: string,
  status: Outcome['status'],
  extra: Partial<Outcome> = {},
): Outcome {
  return {
    platform: platformId,
    platformId,
    category: 'social',
    url: `https://${platformId}.test/`,
    status,
    responseTime: 1,
    evidence: { rule: 'r', attempts: 1 },
    ...extra,
  };
}
