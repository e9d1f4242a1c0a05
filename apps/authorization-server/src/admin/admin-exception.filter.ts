import { type ArgumentsHost, Catch, type ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IdSource } from '@mcp-platform/shared-clock';
import { mapAdminError } from './admin-error.mapper';
import { RawUpload } from './admin-raw-upload';

/**
 * Answers every failure of an admin route with `{ error: { code, message } }` and its status. Internal
 * errors are logged with their id and the cause; the caller sees only the id. 401s and scope refusals
 * carry their `WWW-Authenticate` challenge (RFC 6750 §3).
 */
@Catch()
export class AdminExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('AdminApi');

  constructor(private readonly ids: IdSource) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const { error, cause } = mapAdminError(exception, this.ids);
    if (cause !== undefined) {
      this.logger.error({ msg: 'admin API internal error', errorId: error.details.errorId, err: cause instanceof Error ? cause : new Error(String(cause)) });
    }
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (error.details.challenge) void reply.header('www-authenticate', error.details.challenge);
    // A raw upload refused before its end: close the connection after the answer rather than read the rest (as Fastify does over its body limit).
    const body = host.switchToHttp().getRequest<FastifyRequest>().body;
    if (body instanceof RawUpload && body.unread) void reply.header('connection', 'close');
    void reply.code(error.status).header('content-type', 'application/json; charset=utf-8').header('cache-control', 'no-store').send(error.toBody());
  }
}
