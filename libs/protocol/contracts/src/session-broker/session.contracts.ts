import { z } from 'zod';
import { defineEvent } from '../define-contract';

/** A legacy session ended (DELETE or expiry); every broker replica closes its streams for it (S-93). */
export const sessionClosed = defineEvent({
  subject: 'session-broker.v1.session.closed',
  delivery: 'all',
  payload: z.object({ sessionId: z.string().min(1), reason: z.enum(['deleted', 'expired']) }),
});
