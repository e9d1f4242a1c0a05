import { describe, expect, it } from 'vitest';
import { AdminApiError } from './admin.errors';
import { VirtualServerBodySchema } from './catalog-admin.schemas';
import { CreateUserBodySchema, TenantSlugSchema } from './identity-admin.schemas';
import { ZodValidationPipe } from './zod-validation.pipe';

function refusal(run: () => unknown): AdminApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof AdminApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe(ZodValidationPipe, () => {
  describe('transform', () => {
    it('returns the parsed value with defaults applied', () => {
      const pipe = new ZodValidationPipe(VirtualServerBodySchema);
      expect(pipe.transform({ title: 'Main' })).toEqual({ title: 'Main', public: false, tools: [] });
    });

    it('drops keys the schema does not know', () => {
      const pipe = new ZodValidationPipe(CreateUserBodySchema);
      expect(pipe.transform({ username: 'ada', password: 'correct horse battery', platformAdmin: true })).toEqual({
        username: 'ada',
        password: 'correct horse battery',
        roles: [],
      });
    });

    it('refuses with 400 INVALID_REQUEST listing every refused field', () => {
      const error = refusal(() => new ZodValidationPipe(VirtualServerBodySchema).transform({ public: 'yes', tools: 'calculate' }));
      expect(error.status).toBe(400);
      const body = error.toBody();
      expect(body.error.code).toBe('INVALID_REQUEST');
      expect(body.error.issues?.map((issue) => issue.path).sort()).toEqual(['public', 'tools']);
      expect(body.error.message).toMatch(/^invalid body: /);
    });

    it('refuses a missing body', () => {
      expect(refusal(() => new ZodValidationPipe(VirtualServerBodySchema).transform(undefined)).status).toBe(400);
    });

    it('names the path parameter it refused', () => {
      const error = refusal(() => new ZodValidationPipe(TenantSlugSchema, 'path parameter "tenant"').transform('Not A Slug'));
      expect(error.message).toMatch(/^invalid path parameter "tenant": /);
    });
  });
});
