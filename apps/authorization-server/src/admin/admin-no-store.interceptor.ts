import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { Observable } from 'rxjs';

/**
 * `Cache-Control: no-store` on every admin answer: they describe accounts and, once, a client secret
 * (RFC 6749 §5.1 asks the same of token responses), so no shared or browser cache may keep them.
 */
@Injectable()
export class AdminNoStoreInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    void context.switchToHttp().getResponse<FastifyReply>().header('cache-control', 'no-store');
    return next.handle();
  }
}
