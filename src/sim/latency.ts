/**
 * Seeded latency profiles for simulated platforms. `realistic`: median about
 * 300 ms, 10% of platforms 1-3 s, 2% about 8 s, 1% never answer. `zero`: at once.
 */
import { hashSeed, seededRandom } from './random.js';

export type LatencyProfile = 'realistic' | 'zero';
export const LATENCY_PROFILES: readonly LatencyProfile[] = ['realistic', 'zero'];

/** Milliseconds before answering, or 'hang' for a platform that never answers. */
export type Latency = number | 'hang';

/** The latency of one platform under a profile: a pure function of (profile, seed, key). */
export function platformLatency(profile: LatencyProfile, seed: number, key: string): Latency {
  if (profile === 'zero') return 0;
  const random = seededRandom(hashSeed(`${seed}:${key}`));
  const bucket = random();
  if (bucket < 0.01) return 'hang';
  if (bucket < 0.03) return Math.round(7000 + random() * 2000);
  if (bucket < 0.13) return Math.round(1000 + random() * 2000);
  // Log-normal around 300 ms for the rest.
  const u1 = Math.max(random(), 1e-9);
  const u2 = random();
  const normal = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  return Math.round(Math.min(950, Math.max(40, 300 * Math.exp(0.45 * normal))));
}
