/** Access-token verification and Bearer challenges for the platform's resource servers (the session broker, the admin API). */
export {
  ACCEPTED_ALGORITHMS,
  AccessTokenVerifier,
  canonicalResource,
  type AccessTokenVerifierOptions,
  type PublicJwk,
  type SigningKeySet,
  type VerifiedAccessToken,
} from './access-token.verifier';
export { RevocationList, type RevocableToken } from './revocation-list';
export { KeySetUnavailableError, TokenRejectedError, TokenRejectionReason } from './token-rejected.error';
export { bearerChallenge, parseBearerAuthorization, type BearerChallengeParameters, type BearerErrorCode } from './bearer';
