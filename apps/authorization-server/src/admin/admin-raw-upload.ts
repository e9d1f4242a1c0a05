import type { Readable } from 'node:stream';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AdminApiError, AdminErrorCode } from './admin.errors';

/**
 * Raw request bodies for the admin routes that take bytes (a resource's content): the body reaches
 * the route unread, as a stream, whatever its `Content-Type` (JSON and text included), and the route
 * reads it chunk by chunk under its own limit. Every other route keeps the host's parsers.
 *
 * Fastify picks a body parser by `Content-Type` before a route runs. For a route marked with
 * `RawUploadRoute()`, an `onRequest` hook makes the type Fastify sees a private one whose parser hands
 * on the stream; the client's own headers stay on the raw request, where `RawUpload` reads them.
 */

/** The media type a raw-upload route's body is parsed as (never sent by clients, never shown to them). */
const RAW_UPLOAD_MEDIA_TYPE = 'application/x-mcp-platform-raw-upload';

/** The Fastify route config flag set by `RawUploadRoute()`. */
const RAW_UPLOAD_ROUTE = 'adminRawUpload';

/** The unread body of a raw-upload route, with what the client said about it. */
export class RawUpload {
  /**
   * The bytes, as they arrive. Leaving the loop early (a refusal) leaves the request intact rather
   * than destroying it with its socket, so the refusal still reaches the client.
   */
  readonly stream: AsyncIterable<Uint8Array>;

  constructor(
    private readonly body: Readable,
    /** The client's `Content-Type`, if it sent one that names a media type (not curl's form default). */
    readonly contentType: string | undefined,
    /** The client's `Content-Length`, if it sent one (absent for a chunked transfer). */
    readonly declaredBytes: number | undefined,
  ) {
    this.stream = body.iterator({ destroyOnReturn: false });
  }

  /** Whether bytes of the body are still unread (a refusal came first): its connection is not reused then. */
  get unread(): boolean {
    return !this.body.readableEnded;
  }
}

/** Marks a route as taking a raw body (read it with `@RawUploadBody()` of `admin-openapi.decorators.ts`). */
export const RawUploadRoute = (): MethodDecorator => RouteConfig({ [RAW_UPLOAD_ROUTE]: true });

/**
 * Installs the hook and the parser on the host's Fastify instance once the admin module starts (the
 * routes are registered by then; Fastify binds hooks to routes when it becomes ready).
 */
@Injectable()
export class AdminRawUploadParsing implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify) return;
    fastify.addContentTypeParser(RAW_UPLOAD_MEDIA_TYPE, (request, payload, done) => done(null, rawUploadOf(request, payload)));
    fastify.addHook('onRequest', async (request) => {
      const config = request.routeOptions.config as unknown as Record<string, unknown> | undefined;
      // Replaces the type Fastify reads (`request.headers` merges these over the raw headers, which keep the client's).
      if (config?.[RAW_UPLOAD_ROUTE] === true) request.headers = { 'content-type': RAW_UPLOAD_MEDIA_TYPE };
    });
  }
}

/**
 * Media types that say nothing about the content: curl's default for `--data-binary` (a body sent
 * that way is the file as it is, not a form).
 */
const NOT_A_CONTENT_TYPE = /^application\/x-www-form-urlencoded\s*(;|$)/i;

function rawUploadOf(request: FastifyRequest, payload: Readable): RawUpload {
  const headers = request.raw.headers;
  const given = headers['content-type']?.trim();
  const contentType = given && !NOT_A_CONTENT_TYPE.test(given) ? given : undefined;
  const length = headers['content-length'];
  const declaredBytes = length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined;
  return new RawUpload(payload, contentType, declaredBytes);
}

/** The body of a raw-upload route; anything else (a route not marked, a parser missing) is a wiring bug, answered as a bad request. */
export function requireRawUpload(value: unknown): RawUpload {
  if (value instanceof RawUpload) return value;
  throw new AdminApiError(AdminErrorCode.InvalidRequest, 'this route takes the content as the raw request body');
}
