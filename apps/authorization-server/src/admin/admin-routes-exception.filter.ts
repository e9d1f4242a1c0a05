import { type ArgumentsHost, Catch } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ADMIN_API_PATH } from './admin.constants';
import { AdminExceptionFilter } from './admin-exception.filter';

/**
 * Failures Fastify raises before an admin route runs (a body over the limit, a body that is not JSON)
 * reach only global filters. This one answers those under `/admin/v1/` with the admin API's error
 * envelope like every other admin error, and leaves everything else to Nest's default handling.
 */
@Catch()
export class AdminRoutesExceptionFilter extends BaseExceptionFilter {
  constructor(private readonly admin: AdminExceptionFilter) {
    super();
  }

  override catch(exception: unknown, host: ArgumentsHost): void {
    const url = host.switchToHttp().getRequest<FastifyRequest | undefined>()?.url ?? '';
    if (url.startsWith(`/${ADMIN_API_PATH}/`)) return this.admin.catch(exception, host);
    super.catch(exception, host);
  }
}
