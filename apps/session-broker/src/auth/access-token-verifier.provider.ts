import { type FactoryProvider, Logger } from '@nestjs/common';
import { authorizationServer } from '@mcp-platform/protocol-contracts';
import { AccessTokenVerifier } from '@mcp-platform/shared-auth';
import { MessageBus } from '@mcp-platform/shared-messaging';
import { type ResolvedSessionBrokerOptions, SESSION_BROKER_OPTIONS } from '../session-broker.options';

const KEY_FETCH_TIMEOUT_MS = 5_000;

/**
 * The broker's token verifier: keys come from the authorization server over the bus, cached;
 * `signingKeysRotated` invalidates them (see `BrokerEvents`). The configured issuer is the one the
 * broker advertises in its metadata, so it is the one tokens must carry; when the authorization
 * server reports another, tokens will fail as `wrong_issuer` and the mismatch is logged.
 */
export const accessTokenVerifierProvider: FactoryProvider<AccessTokenVerifier> = {
  provide: AccessTokenVerifier,
  inject: [MessageBus, SESSION_BROKER_OPTIONS],
  useFactory: (bus: MessageBus, options: ResolvedSessionBrokerOptions) => {
    const logger = new Logger('AccessTokenVerifier');
    const issuer = options.auth.issuer;
    return new AccessTokenVerifier({
      keySource: async () => {
        const published = await bus.request(authorizationServer.listSigningKeys, {}, { timeoutMs: KEY_FETCH_TIMEOUT_MS });
        if (published.issuer !== issuer) {
          logger.error(`the authorization server's issuer is ${published.issuer}, but this broker is configured for ${issuer} (AUTH_ISSUER)`);
        }
        logger.debug(`fetched ${published.keys.length} signing key(s)`);
        return { issuer, keys: published.keys };
      },
    });
  },
};
