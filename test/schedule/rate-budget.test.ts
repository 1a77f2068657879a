/**
 * The process-local budget against the rate-budget contract, on the real
 * clock (the Redis budget runs the same contract in
 * test/cluster/rate-budget.test.ts; the GCRA step itself is in gcra.test.ts).
 */
import { describe } from 'vitest';
import { LocalRateBudget } from '../../src/schedule/local-rate-budget.js';
import { describeRateBudgetContract } from '../rate-budget.contract.js';

describe('LocalRateBudget, the rate-budget contract', () => {
  describeRateBudgetContract(() => new LocalRateBudget());
});
