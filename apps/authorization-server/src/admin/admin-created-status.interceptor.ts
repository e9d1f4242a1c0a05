import { type CallHandler, type ExecutionContext, HttpStatus, Injectable, type NestInterceptor } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { type Observable, tap } from 'rxjs';

/**
 * 201 Created for a put that created what it names, the route's own status (200) for one that replaced
 * it (RFC 9110 §9.3.4), told by the `created` field of the answer. Set by `AdminRoute({ createdStatus: true })`.
 */
@Injectable()
export class AdminCreatedStatusInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    return next.handle().pipe(
      tap((answer) => {
        if (isCreated(answer)) void reply.status(HttpStatus.CREATED);
      }),
    );
  }
}

function isCreated(answer: unknown): boolean {
  return typeof answer === 'object' && answer !== null && (answer as { created?: unknown }).created === true;
}
