import { z } from 'zod';

/**
 * The admin API's error codes, the `error.code` of every error body. Each has exactly one HTTP status
 * (`adminErrorStatus`); errors of the services behind the API (identity, clients, and over the bus
 * the tool executor, the resource store and the task scheduler) are mapped onto these in
 * `admin-error.mapper.ts`.
 */
export const AdminErrorCode = {
  /** The body, a path parameter or the requested change is invalid. */
  InvalidRequest: 'INVALID_REQUEST',
  /** No bearer token, or one that does not verify (RFC 6750 `invalid_token`). */
  Unauthorized: 'UNAUTHORIZED',
  /** The token lacks the `admin` scope (RFC 6750 `insufficient_scope`). */
  InsufficientScope: 'INSUFFICIENT_SCOPE',
  /** The token is valid but its roles do not cover this tenant or this resource. */
  Forbidden: 'FORBIDDEN',
  /** The tenant, user, role, client, tool, virtual server or upstream source does not exist. */
  NotFound: 'NOT_FOUND',
  /** It exists already, or the change conflicts with the current state. */
  Conflict: 'CONFLICT',
  /** The content would take the tenant over its resource storage quota (the resource store refused it). */
  QuotaExceeded: 'QUOTA_EXCEEDED',
  /**
   * The body or the resource is over its size limit: an upload over `ADMIN_UPLOAD_LIMIT_BYTES`, or
   * content over the resource store's per-resource limit (`RESOURCE_STORE_MAX_RESOURCE_BYTES`).
   */
  PayloadTooLarge: 'PAYLOAD_TOO_LARGE',
  /** A service behind the API (the tool executor, the resource store, the task scheduler) did not answer in time or is not running. */
  Unavailable: 'UNAVAILABLE',
  /** Anything unexpected; the body carries an `errorId` that was logged with the cause. */
  Internal: 'INTERNAL',
} as const;
export type AdminErrorCode = (typeof AdminErrorCode)[keyof typeof AdminErrorCode];

/** The HTTP status of each code. */
export function adminErrorStatus(code: AdminErrorCode): number {
  switch (code) {
    case AdminErrorCode.InvalidRequest:
      return 400;
    case AdminErrorCode.Unauthorized:
      return 401;
    case AdminErrorCode.InsufficientScope:
    case AdminErrorCode.Forbidden:
      return 403;
    case AdminErrorCode.NotFound:
      return 404;
    case AdminErrorCode.Conflict:
      return 409;
    case AdminErrorCode.QuotaExceeded:
    case AdminErrorCode.PayloadTooLarge:
      return 413;
    case AdminErrorCode.Unavailable:
      return 503;
    case AdminErrorCode.Internal:
      return 500;
    default:
      return unreachable(code);
  }
}

/** One refused field of a request, from the Zod issue that refused it. */
export const AdminErrorIssueSchema = z.object({
  /** Where in the body or parameters, e.g. `tools.0` or `name`. */
  path: z.string(),
  message: z.string(),
});

/** Every error answer of the admin API: `{ error: { code, message } }`, plus details when there are any. */
export const AdminErrorBodySchema = z.object({
  error: z.object({
    code: z.enum(Object.values(AdminErrorCode) as [AdminErrorCode, ...AdminErrorCode[]]),
    message: z.string(),
    /** The refused fields of an `INVALID_REQUEST`. */
    issues: z.array(AdminErrorIssueSchema).optional(),
    /** For `INTERNAL`: the id logged with the cause, to quote to an operator. */
    errorId: z.string().optional(),
  }),
});
export type AdminErrorBody = z.infer<typeof AdminErrorBodySchema>;

/** A refusal of the admin API itself (authentication, authorization, validation), or a mapped service error. */
export class AdminApiError extends Error {
  constructor(
    readonly code: AdminErrorCode,
    message: string,
    readonly details: {
      issues?: Array<{ path: string; message: string }>;
      errorId?: string;
      /** The `WWW-Authenticate` challenge of a 401 or a 403 for a missing scope (RFC 6750 §3). */
      challenge?: string;
    } = {},
  ) {
    super(message);
    this.name = 'AdminApiError';
  }

  get status(): number {
    return adminErrorStatus(this.code);
  }

  toBody(): AdminErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details.issues ? { issues: this.details.issues } : {}),
        ...(this.details.errorId ? { errorId: this.details.errorId } : {}),
      },
    };
  }
}

/** The compile-time exhaustiveness check of every switch over a code enum. */
export function unreachable(value: never): never {
  throw new Error(`unhandled case: ${String(value)}`);
}
