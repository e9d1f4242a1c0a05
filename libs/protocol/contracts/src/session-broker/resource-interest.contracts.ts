import { z } from 'zod';
import { TENANT_SLUG_PATTERN } from '../common/tenant';
import { defineEvent } from '../define-contract';

/**
 * How long a reported subscription counts without being reported again: a broker replica that died
 * stops reporting, and what it held is forgotten this long after its last report.
 */
export const RESOURCE_INTEREST_TTL_MS = 60_000;

/** How often each broker replica reports everything it holds again (well under {@link RESOURCE_INTEREST_TTL_MS}). */
export const RESOURCE_INTEREST_REFRESH_MS = 20_000;

/** The most subscriptions one report names (held and released together): a larger set goes in several reports. */
export const RESOURCE_INTEREST_REPORT_MAX = 500;

/** One subscribed resource: a URI within a tenant. */
export const ResourceInterestSchema = z.object({ tenant: z.string().regex(TENANT_SLUG_PATTERN), uri: z.string().min(1).max(2048) });
export type ResourceInterest = z.infer<typeof ResourceInterestSchema>;

/**
 * What a broker replica's clients subscribe to (issue 15 §4), for the tool executor, which opens and
 * closes upstream subscriptions: `held` are subscribed now (legacy sessions' `resources/subscribe`, as
 * the shared session store holds them, and this replica's modern `subscriptions/listen` streams);
 * `released` are no longer. `holder` names the replica (a random id of its process); a holder's `held`
 * entries count for {@link RESOURCE_INTEREST_TTL_MS} and are reported again every
 * {@link RESOURCE_INTEREST_REFRESH_MS}, so a replica that dies releases what it held by going silent.
 */
export const resourceInterestReported = defineEvent({
  subject: 'session-broker.v1.resource-interest.reported',
  delivery: 'all',
  payload: z.object({
    holder: z.string().min(1).max(64),
    held: z.array(ResourceInterestSchema).max(RESOURCE_INTEREST_REPORT_MAX),
    released: z.array(ResourceInterestSchema).max(RESOURCE_INTEREST_REPORT_MAX),
  }),
});
