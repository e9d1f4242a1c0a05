import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';

/**
 * The store's two size refusals, both `INVALID_PARAMS` with their numbers in `data` (the admin API
 * tells them apart by these fields: 413 `QUOTA_EXCEEDED` and 413 `PAYLOAD_TOO_LARGE`).
 */

/** Content that would take the tenant over its quota: `data: { quotaBytes, usedBytes, requestedBytes }`. */
export function overQuota(tenant: string, quotaBytes: number, usedBytes: number, requestedBytes: number): RpcError {
  return new RpcError(WireErrorCode.InvalidParams, `Tenant ${tenant} would store ${usedBytes + requestedBytes} bytes, over its quota of ${quotaBytes}`, {
    quotaBytes,
    usedBytes,
    requestedBytes,
  });
}

/** One resource's content over the store's per-resource limit: `data: { maxResourceBytes, requestedBytes }`. */
export function overResourceLimit(maxResourceBytes: number, requestedBytes: number): RpcError {
  return new RpcError(WireErrorCode.InvalidParams, `Resource content of ${requestedBytes} bytes is over the limit of ${maxResourceBytes} bytes per resource`, {
    maxResourceBytes,
    requestedBytes,
  });
}
