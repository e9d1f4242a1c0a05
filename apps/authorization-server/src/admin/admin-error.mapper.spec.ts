import { BadRequestException, NotFoundException } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { WireErrorCode } from '@mcp-platform/protocol-contracts';
import { SequentialIds } from '@mcp-platform/shared-clock';
import { RpcError } from '@mcp-platform/shared-messaging';
import { IdentityError, IdentityErrorCode } from '../identity/identity.errors';
import { AdminApiError, AdminErrorCode, adminErrorStatus } from './admin.errors';
import { fromIdentityCode, fromWireCode, mapAdminError } from './admin-error.mapper';

describe(mapAdminError, () => {
  it('keeps the API’s own errors as they are', () => {
    const error = new AdminApiError(AdminErrorCode.Unauthorized, 'no token', { challenge: 'Bearer' });
    expect(mapAdminError(error, new SequentialIds('err'))).toEqual({ error });
  });

  it.each([
    [IdentityErrorCode.NotFound, 404],
    [IdentityErrorCode.Conflict, 409],
    [IdentityErrorCode.Invalid, 400],
    [IdentityErrorCode.Forbidden, 403],
    [IdentityErrorCode.Unavailable, 503],
  ] as const)('maps the identity code %s to %i with its message', (code, status) => {
    const { error, cause } = mapAdminError(new IdentityError(code, 'tenant acme exists'), new SequentialIds('err'));
    expect(error.status).toBe(status);
    expect(error.message).toBe('tenant acme exists');
    expect(cause).toBeUndefined();
  });

  it.each([
    [WireErrorCode.NotFound, 404],
    [WireErrorCode.InvalidParams, 400],
    [WireErrorCode.InvalidRequest, 400],
    [WireErrorCode.Forbidden, 403],
    [WireErrorCode.InsufficientScope, 403],
    [WireErrorCode.Unavailable, 503],
    [WireErrorCode.Timeout, 503],
    [WireErrorCode.Cancelled, 503],
  ] as const)('maps the wire code %s to %i', (code, status) => {
    const { error, cause } = mapAdminError(new RpcError(code, 'unknown built-in handler'), new SequentialIds('err'));
    expect(error.status).toBe(status);
    expect(cause).toBeUndefined();
  });

  it('maps the resource store’s quota refusal (INVALID_PARAMS with the quota) to 413 QUOTA_EXCEEDED', () => {
    const rpc = new RpcError(WireErrorCode.InvalidParams, 'Tenant acme would store 11 bytes, over its quota of 10', {
      quotaBytes: 10,
      usedBytes: 10,
      requestedBytes: 1,
    });
    const { error } = mapAdminError(rpc, new SequentialIds('err'));
    expect(error.status).toBe(413);
    expect(error.toBody()).toEqual({ error: { code: 'QUOTA_EXCEEDED', message: 'Tenant acme would store 11 bytes, over its quota of 10' } });
  });

  it('maps the resource store’s size refusal (INVALID_PARAMS with the per-resource limit) to 413 PAYLOAD_TOO_LARGE', () => {
    const rpc = new RpcError(WireErrorCode.InvalidParams, 'Resource content of 17 bytes is over the limit of 16 bytes per resource', {
      maxResourceBytes: 16,
      requestedBytes: 17,
    });
    const { error } = mapAdminError(rpc, new SequentialIds('err'));
    expect(error.status).toBe(413);
    expect(error.toBody()).toEqual({
      error: { code: 'PAYLOAD_TOO_LARGE', message: 'Resource content of 17 bytes is over the limit of 16 bytes per resource' },
    });
  });

  it.each([
    ['SKILL_TOO_LARGE', 413, 'PAYLOAD_TOO_LARGE'],
    ['SKILL_URI_TAKEN', 409, 'CONFLICT'],
    ['DIGEST_CHANGED', 409, 'CONFLICT'],
    ['UPSTREAM_ITEM', 409, 'CONFLICT'],
    ['SOMETHING_ELSE', 400, 'INVALID_REQUEST'],
  ] as const)('maps an INVALID_PARAMS refusal with data.code %s to %i %s, with its message', (dataCode, status, code) => {
    const { error, cause } = mapAdminError(new RpcError(WireErrorCode.InvalidParams, 'refused', { code: dataCode }), new SequentialIds('err'));
    expect(error.status).toBe(status);
    expect(error.toBody()).toEqual({ error: { code, message: 'refused' } });
    expect(cause).toBeUndefined();
  });

  it('maps data.code only under INVALID_PARAMS: a NOT_FOUND carrying DIGEST_CHANGED stays 404', () => {
    expect(mapAdminError(new RpcError(WireErrorCode.NotFound, 'gone', { code: 'DIGEST_CHANGED' }), new SequentialIds('err')).error.status).toBe(404);
  });

  it('keeps the executor’s error id of an internal wire error, and the cause for the log', () => {
    const rpc = new RpcError(WireErrorCode.Internal, 'internal error (id exec-9)', undefined, 'exec-9');
    const { error, cause } = mapAdminError(rpc, new SequentialIds('err'));
    expect(error.status).toBe(500);
    expect(error.toBody()).toEqual({ error: { code: 'INTERNAL', message: 'internal error in a service behind the admin API (id exec-9)', errorId: 'exec-9' } });
    expect(cause).toBe(rpc);
  });

  it('turns anything unexpected into an internal error with a fresh id, hiding its message', () => {
    const boom = new Error('password column missing');
    const { error, cause } = mapAdminError(boom, new SequentialIds('err'));
    expect(error.toBody()).toEqual({ error: { code: 'INTERNAL', message: 'internal error (id err-1)', errorId: 'err-1' } });
    expect(JSON.stringify(error.toBody())).not.toContain('password');
    expect(cause).toBe(boom);
  });

  it('maps Nest’s own client errors by status', () => {
    expect(mapAdminError(new BadRequestException('bad'), new SequentialIds('err')).error.code).toBe(AdminErrorCode.InvalidRequest);
    expect(mapAdminError(new NotFoundException('gone'), new SequentialIds('err')).error.code).toBe(AdminErrorCode.NotFound);
  });
});

describe(fromIdentityCode, () => {
  it('gives every identity code a status', () => {
    for (const code of Object.values(IdentityErrorCode)) expect(adminErrorStatus(fromIdentityCode(code))).toBeGreaterThanOrEqual(400);
  });
});

describe(fromWireCode, () => {
  it('gives every wire code a status', () => {
    for (const code of Object.values(WireErrorCode)) expect(adminErrorStatus(fromWireCode(code))).toBeGreaterThanOrEqual(400);
  });

  it('answers a refused request of the caller (bad definition, mismatched headers) with 400', () => {
    for (const code of [WireErrorCode.InvalidParams, WireErrorCode.HeaderMismatch]) expect(adminErrorStatus(fromWireCode(code))).toBe(400);
  });
});

describe(adminErrorStatus, () => {
  it('answers each admin code with one status', () => {
    expect(Object.fromEntries(Object.values(AdminErrorCode).map((code) => [code, adminErrorStatus(code)]))).toEqual({
      INVALID_REQUEST: 400,
      UNAUTHORIZED: 401,
      INSUFFICIENT_SCOPE: 403,
      FORBIDDEN: 403,
      NOT_FOUND: 404,
      CONFLICT: 409,
      QUOTA_EXCEEDED: 413,
      PAYLOAD_TOO_LARGE: 413,
      UNAVAILABLE: 503,
      INTERNAL: 500,
    });
  });
});
