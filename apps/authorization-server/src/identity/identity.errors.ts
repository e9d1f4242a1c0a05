/**
 * Why an identity operation (tenants, users, roles) failed. The admin API maps each code to an HTTP
 * status with an exhaustive switch, so a new code forces a decision there (STYLE.md §5).
 */
export const IdentityErrorCode = {
  /** The tenant, user or role does not exist (or is not in the tenant the caller named). */
  NotFound: 'NOT_FOUND',
  /** It exists already (a tenant slug, a username), or the change would leave no platform admin. */
  Conflict: 'CONFLICT',
  /** The input breaks a rule: slug or name syntax, reserved slug, password policy, unknown role, built-in role. */
  Invalid: 'INVALID',
  /** The operation is not allowed for this subject. */
  Forbidden: 'FORBIDDEN',
  /** Another service the operation needs (the tool executor) did not answer or failed; nothing was changed. */
  Unavailable: 'UNAVAILABLE',
} as const;
export type IdentityErrorCode = (typeof IdentityErrorCode)[keyof typeof IdentityErrorCode];

/** A rule of the identity domain refused the operation; `message` is fit to show to an administrator. */
export class IdentityError extends Error {
  constructor(
    readonly code: IdentityErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'IdentityError';
  }
}

/** Whether `error` is an `IdentityError`, optionally of one code. */
export function isIdentityError(error: unknown, code?: IdentityErrorCode): error is IdentityError {
  return error instanceof IdentityError && (code === undefined || error.code === code);
}
