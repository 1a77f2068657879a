/** The states of a platform's health in the platform list (platform-health.ts). No imports: the web page's types read it. */
export const HEALTH_STATES = ['healthy', 'rule_drift', 'broken', 'blocked', 'unchecked'] as const;
export type HealthState = (typeof HEALTH_STATES)[number];
