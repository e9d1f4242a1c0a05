import { HttpException } from '@nestjs/common';
import { WireErrorCode } from '@mcp-platform/protocol-contracts';
import type { IdSource } from '@mcp-platform/shared-clock';
import { isRpcError } from '@mcp-platform/shared-messaging';
import { IdentityError, IdentityErrorCode } from '../identity/identity.errors';
import { AdminApiError, AdminErrorCode, unreachable } from './admin.errors';

/** What the mapper decided: the API error to answer with, and the cause to log when it is internal. */
export interface MappedAdminError {
  error: AdminApiError;
  /** Set for internal errors: log it with `error.details.errorId`, never show it to the caller. */
  cause?: unknown;
}

/**
 * Turns anything a route threw into the admin API's error (STYLE.md §5: one mapper per transport,
 * an exhaustive switch per source). Sources: the API's own refusals, identity rules (tenants, users,
 * roles), OAuth client rules, wire errors of the tool executor, the resource store and the task
 * scheduler, and Nest's own HTTP exceptions.
 * Anything else is internal: a fresh error id (from `ids`) goes to the caller and, with the cause, to the log.
 */
export function mapAdminError(error: unknown, ids: IdSource): MappedAdminError {
  if (error instanceof AdminApiError) return { error };
  if (error instanceof IdentityError) return { error: new AdminApiError(fromIdentityCode(error.code), error.message) };
  if (isRpcError(error)) {
    if (isQuotaRefusal(error.code, error.data)) return { error: new AdminApiError(AdminErrorCode.QuotaExceeded, error.message) };
    if (isSizeRefusal(error.code, error.data)) return { error: new AdminApiError(AdminErrorCode.PayloadTooLarge, error.message) };
    const refusal = refusalCode(error.code, error.data);
    if (refusal) return { error: new AdminApiError(refusal, error.message) };
    const code = fromWireCode(error.code);
    if (code !== AdminErrorCode.Internal) return { error: new AdminApiError(code, wireMessage(error.code, error.message)) };
    // The service (tool executor, resource store, task scheduler) logged its own cause under its own id; keep that id so the two logs meet.
    const errorId = error.errorId ?? ids.newId();
    return { error: new AdminApiError(code, `internal error in a service behind the admin API (id ${errorId})`, { errorId }), cause: error };
  }
  if (error instanceof HttpException) {
    const code = fromHttpStatus(error.getStatus());
    if (code !== AdminErrorCode.Internal) return { error: new AdminApiError(code, error.message) };
  }
  const errorId = ids.newId();
  return { error: new AdminApiError(AdminErrorCode.Internal, `internal error (id ${errorId})`, { errorId }), cause: error };
}

/** Identity rules (H1a's `IdentityErrorCode`). */
export function fromIdentityCode(code: IdentityErrorCode): AdminErrorCode {
  switch (code) {
    case IdentityErrorCode.NotFound:
      return AdminErrorCode.NotFound;
    case IdentityErrorCode.Conflict:
      return AdminErrorCode.Conflict;
    case IdentityErrorCode.Invalid:
      return AdminErrorCode.InvalidRequest;
    case IdentityErrorCode.Forbidden:
      return AdminErrorCode.Forbidden;
    case IdentityErrorCode.Unavailable:
      return AdminErrorCode.Unavailable;
    default:
      return unreachable(code);
  }
}

/** Wire errors of the administration RPCs (the tool executor, the resource store, the task scheduler). */
export function fromWireCode(code: WireErrorCode): AdminErrorCode {
  switch (code) {
    case WireErrorCode.NotFound:
      return AdminErrorCode.NotFound;
    case WireErrorCode.InvalidRequest:
    case WireErrorCode.InvalidParams:
    case WireErrorCode.Unsupported:
    case WireErrorCode.MissingClientCapability:
    case WireErrorCode.HeaderMismatch:
      return AdminErrorCode.InvalidRequest;
    case WireErrorCode.Forbidden:
    case WireErrorCode.InsufficientScope:
      return AdminErrorCode.Forbidden;
    case WireErrorCode.Timeout:
    case WireErrorCode.Unavailable:
    case WireErrorCode.Cancelled:
      return AdminErrorCode.Unavailable;
    case WireErrorCode.Internal:
      return AdminErrorCode.Internal;
    default:
      return unreachable(code);
  }
}

/** Nest's own exceptions (a framework refusal inside a route); anything unusual counts as internal. */
function fromHttpStatus(status: number): AdminErrorCode {
  if (status === 400 || status === 415 || status === 422) return AdminErrorCode.InvalidRequest;
  if (status === 413) return AdminErrorCode.PayloadTooLarge;
  if (status === 401) return AdminErrorCode.Unauthorized;
  if (status === 403) return AdminErrorCode.Forbidden;
  if (status === 404) return AdminErrorCode.NotFound;
  if (status === 409) return AdminErrorCode.Conflict;
  if (status === 503) return AdminErrorCode.Unavailable;
  return AdminErrorCode.Internal;
}

/**
 * The resource store refuses content over the tenant quota with `INVALID_PARAMS` and the numbers
 * (`resource-admin.contracts.ts`); to an administrator that is 413, not a malformed request.
 */
function isQuotaRefusal(code: WireErrorCode, data: unknown): boolean {
  return code === WireErrorCode.InvalidParams && typeof data === 'object' && data !== null && typeof (data as { quotaBytes?: unknown }).quotaBytes === 'number';
}

/**
 * The resource store refuses content over its per-resource limit with `INVALID_PARAMS` and
 * `data.maxResourceBytes` (`resource-upload.contracts.ts`): 413, like a body over the API's own limit.
 */
function isSizeRefusal(code: WireErrorCode, data: unknown): boolean {
  return (
    code === WireErrorCode.InvalidParams &&
    typeof data === 'object' &&
    data !== null &&
    typeof (data as { maxResourceBytes?: unknown }).maxResourceBytes === 'number'
  );
}

/**
 * Refusals whose `INVALID_PARAMS` carries a `data.code` that is no malformed request to an administrator:
 * the resource store's of a skill (`skill.contracts.ts`: an archive too large to unpack is 413, a skill
 * URI a plain resource holds 409; a resource, template or prompt an upstream source serves, 409) and the
 * tool executor's of an approval (`upstream-admin.contracts.ts`: a digest that is no longer the observed
 * one, 409). Any other `data.code` stays 400.
 */
const REFUSAL_CODES: ReadonlyMap<unknown, AdminErrorCode> = new Map([
  ['SKILL_TOO_LARGE', AdminErrorCode.PayloadTooLarge],
  ['SKILL_URI_TAKEN', AdminErrorCode.Conflict],
  ['DIGEST_CHANGED', AdminErrorCode.Conflict],
  ['UPSTREAM_ITEM', AdminErrorCode.Conflict],
]);

function refusalCode(code: WireErrorCode, data: unknown): AdminErrorCode | undefined {
  if (code !== WireErrorCode.InvalidParams || typeof data !== 'object' || data === null) return undefined;
  return REFUSAL_CODES.get((data as { code?: unknown }).code);
}

/** The bus's messages name subjects when nobody answers; the administrator needs the gist. */
function wireMessage(code: WireErrorCode, message: string): string {
  if (code === WireErrorCode.Unavailable || code === WireErrorCode.Timeout) return `a service behind the admin API is not available: ${message}`;
  return message;
}
