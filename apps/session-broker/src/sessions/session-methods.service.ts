import { Injectable } from '@nestjs/common';
import { internalError, invalidParamsError, type SetLevelParams, type SubscribeParams } from '@mcp-platform/protocol-mcp';
import type { MethodCall } from '../requests/method-call';
import { failure, type MethodOutcome, result } from '../requests/method-outcome';
import {
  isSubscribableUri,
  MAX_SUBSCRIPTION_CHARACTERS,
  MAX_SUBSCRIPTION_URI_LENGTH,
  MAX_SUBSCRIPTIONS_PER_SESSION,
  withoutSubscription,
  withSubscription,
} from '../subscriptions/resource-subscriptions';
import { SessionStore } from './session.store';

/**
 * The methods that change what a session keeps, in the shared store so every replica sees it:
 * `ping` (S-251), `logging/setLevel` (S-233) and `resources/subscribe`/`unsubscribe` (S-205). They
 * exist only where there are sessions; a request without one never reaches them.
 */
@Injectable()
export class SessionMethods {
  constructor(private readonly sessions: SessionStore) {}

  ping(): MethodOutcome {
    // spec S-251: answer promptly with an empty result, even before initialization completes.
    return result({});
  }

  async setLevel(command: SetLevelParams, call: MethodCall): Promise<MethodOutcome> {
    if (!call.session || !(await this.sessions.update(call.session.id, { logLevel: command.level }))) {
      return failure(internalError(undefined, 'Internal error: the log level could not be stored'));
    }
    // spec S-233: the result is exactly {}.
    return result({});
  }

  subscribe(command: SubscribeParams, call: MethodCall): Promise<MethodOutcome> {
    return this.changeSubscription(command.uri, call, withSubscription);
  }

  unsubscribe(command: SubscribeParams, call: MethodCall): Promise<MethodOutcome> {
    return this.changeSubscription(command.uri, call, withoutSubscription);
  }

  /**
   * The URI goes into (or out of) the session in the shared store, so the replica holding the
   * session's GET stream sends `notifications/resources/updated` (S-206) whichever replica took the
   * request. Any well-formed URI is accepted (existence is not checked: a resource may appear later);
   * unsubscribing from one never subscribed is a success.
   */
  private async changeSubscription(
    uri: string,
    call: MethodCall,
    change: (current: readonly string[] | undefined, uri: string) => string[] | 'full' | undefined,
  ): Promise<MethodOutcome> {
    if (!isSubscribableUri(uri))
      return failure(invalidParamsError(undefined, `Invalid params: uri must be a URI of at most ${MAX_SUBSCRIPTION_URI_LENGTH} characters`));
    const session = call.session;
    if (!session) return failure(internalError(undefined, 'Internal error: a subscription needs a session'));
    const verdict = { full: false };
    const stored = await this.sessions.update(session.id, (current) => {
      const subscriptions = change(current.subscriptions, uri);
      if (subscriptions !== 'full') return subscriptions === undefined ? undefined : { subscriptions };
      verdict.full = true;
      return undefined;
    });
    if (verdict.full) {
      return failure(
        invalidParamsError(
          undefined,
          `Invalid params: a session may hold at most ${MAX_SUBSCRIPTIONS_PER_SESSION} resource subscriptions (${MAX_SUBSCRIPTION_CHARACTERS} characters of URIs)`,
        ),
      );
    }
    if (!stored) return failure(internalError(undefined, 'Internal error: the subscription could not be stored'));
    return result({});
  }
}
