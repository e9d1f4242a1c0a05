import { Injectable, type PipeTransform } from '@nestjs/common';
import type { z } from 'zod';
import { AdminApiError, AdminErrorCode } from './admin.errors';

/** Where the validated value came from, named in the refusal's message. */
export type ValidatedPart = 'body' | 'query' | `path parameter "${string}"` | `query parameter "${string}"`;

/**
 * Parses one request part with a Zod schema (STYLE.md §3: Zod everywhere, no class-validator) and
 * hands the route the parsed value (defaults applied, unknown keys stripped by the schema). A refusal
 * is a 400 `INVALID_REQUEST` listing every refused field.
 */
@Injectable()
export class ZodValidationPipe<S extends z.ZodType> implements PipeTransform<unknown, z.output<S>> {
  constructor(
    private readonly schema: S,
    private readonly part: ValidatedPart = 'body',
  ) {}

  transform(value: unknown): z.output<S> {
    const result = this.schema.safeParse(value);
    if (result.success) return result.data;
    const issues = result.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
    const summary = issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join('; ');
    throw new AdminApiError(AdminErrorCode.InvalidRequest, `invalid ${this.part}: ${summary}`, { issues });
  }
}
