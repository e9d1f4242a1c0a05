import { type CallHandler, type ExecutionContext, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { lastValueFrom, of, throwError } from 'rxjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ADMIN_OPERATION, AdminAuditInterceptor } from './admin-audit.interceptor';
import type { AdminRequest } from './admin-auth.guard';

class Routes {
  createUser(): void {}
}
Reflect.defineMetadata(ADMIN_OPERATION, 'createUser', Routes.prototype.createUser);

function contextFor(request: Partial<AdminRequest>): ExecutionContext {
  return {
    switchToHttp: () => ({ getRequest: () => request }),
    getHandler: () => Routes.prototype.createUser,
    getClass: () => Routes,
  } as unknown as ExecutionContext;
}

const request = (method: string): Partial<AdminRequest> =>
  ({
    method,
    params: { tenant: 'acme', id: 'u-1' },
    body: { username: 'ada', password: 'correct horse battery staple' },
    adminPrincipal: { subject: 'admin-1', clientId: 'cli', tenant: 'acme', scopes: ['admin'], roles: ['tenant-admin'] },
  }) as unknown as Partial<AdminRequest>;

const handler = (result = of({ id: 'u-1' })): CallHandler => ({ handle: () => result });

describe(AdminAuditInterceptor, () => {
  afterEach(() => vi.restoreAllMocks());

  describe('intercept', () => {
    it('logs a successful change with who, what and which tenant, and never the body', async () => {
      const log = vi.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
      await lastValueFrom(new AdminAuditInterceptor(new Reflector()).intercept(contextFor(request('POST')), handler()));
      expect(log).toHaveBeenCalledTimes(1);
      const [record] = log.mock.calls[0] ?? [];
      expect(record).toMatchObject({ action: 'createUser', actor: 'admin-1', clientId: 'cli', actorTenant: 'acme', tenant: 'acme', target: { id: 'u-1' } });
      expect(JSON.stringify(record)).not.toContain('correct horse');
    });

    it('logs nothing for a read', async () => {
      const log = vi.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
      await lastValueFrom(new AdminAuditInterceptor(new Reflector()).intercept(contextFor(request('GET')), handler()));
      expect(log).not.toHaveBeenCalled();
    });

    it('logs nothing when the change failed', async () => {
      const log = vi.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
      const failing = handler(throwError(() => new Error('conflict')));
      await expect(lastValueFrom(new AdminAuditInterceptor(new Reflector()).intercept(contextFor(request('DELETE')), failing))).rejects.toThrow('conflict');
      expect(log).not.toHaveBeenCalled();
    });
  });
});
