import { type CallHandler, type ExecutionContext, Injectable, Logger, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type Observable, tap } from 'rxjs';
import type { AdminRequest } from './admin-auth.guard';

/** Metadata key of a route's operation id (set by `AdminRoute`), the `action` of its audit line. */
export const ADMIN_OPERATION = 'admin:operation';

const MUTATIONS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The audit trail of the admin API: every successful change is logged at info with who made it
 * (subject, client), what (the operation and the path parameters naming its target) and in which
 * tenant. Bodies are never logged: they may carry passwords and client secrets.
 */
@Injectable()
export class AdminAuditInterceptor implements NestInterceptor {
  private readonly logger = new Logger('AdminAudit');

  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<AdminRequest>();
    if (!MUTATIONS.has(request.method)) return next.handle();
    const action = this.reflector.get<string | undefined>(ADMIN_OPERATION, context.getHandler()) ?? `${request.method} ${request.routeOptions.url ?? ''}`;
    return next.handle().pipe(
      tap(() => {
        const principal = request.adminPrincipal;
        const { tenant, ...target } = (request.params ?? {}) as Record<string, string>;
        // Resources are addressed by `?uri=` (a URI does not fit a path segment): it names the target too.
        const uri = (request.query as Record<string, unknown> | undefined)?.['uri'];
        if (typeof uri === 'string') target['uri'] = uri;
        this.logger.log({
          msg: `admin change: ${action}`,
          action,
          actor: principal?.subject,
          clientId: principal?.clientId,
          actorTenant: principal?.tenant,
          tenant,
          target,
        });
      }),
    );
  }
}
