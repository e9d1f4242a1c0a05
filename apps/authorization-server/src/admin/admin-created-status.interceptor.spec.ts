import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { lastValueFrom, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { AdminCreatedStatusInterceptor } from './admin-created-status.interceptor';

/** A reply that records the statuses set on it. */
function replyContext() {
  const statuses: number[] = [];
  const reply = {
    status: (code: number) => {
      statuses.push(code);
      return reply;
    },
  };
  const context = { switchToHttp: () => ({ getResponse: () => reply }) } as unknown as ExecutionContext;
  return { context, statuses };
}

const answering = (answer: unknown): CallHandler => ({ handle: () => of(answer) });

describe(AdminCreatedStatusInterceptor, () => {
  describe('intercept', () => {
    it('answers 201 when the put created the resource, with the answer unchanged', async () => {
      const { context, statuses } = replyContext();
      const answer = { created: true, upstream: { name: 'github' } };
      expect(await lastValueFrom(new AdminCreatedStatusInterceptor().intercept(context, answering(answer)))).toBe(answer);
      expect(statuses).toEqual([201]);
    });

    it("keeps the route's status when the put replaced it, or the answer says nothing of it", async () => {
      for (const answer of [{ created: false }, { created: 'yes' }, {}, undefined, null]) {
        const { context, statuses } = replyContext();
        await lastValueFrom(new AdminCreatedStatusInterceptor().intercept(context, answering(answer)));
        expect(statuses, JSON.stringify(answer)).toEqual([]);
      }
    });
  });
});
