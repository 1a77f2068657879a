/**
 * A limit on checks in flight to one origin that holds beyond this process:
 * in cluster mode every worker asks the same gate (src/redis/host-gate.ts), so
 * the per-host politeness limit holds across the cluster. The engine's own
 * per-host limiter still applies first, inside each process.
 */
export interface HostGate {
  /** Waits for a slot for `origin`; the returned function gives it back (call it exactly once). */
  acquire(origin: string): Promise<() => void>;
}
