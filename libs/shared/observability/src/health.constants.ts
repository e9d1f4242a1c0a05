/** Injection token: an array of `ReadinessCheck`s an app adds to its readiness probe. */
export const HEALTH_CHECKS = 'HEALTH_CHECKS';

/** One readiness condition; `check` throws when the app cannot serve. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}
