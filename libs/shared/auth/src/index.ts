/** Access-token verification and Bearer challenges for the platform's resource servers (the session broker, the admin API). */
export {
  ACCEPTED_ALGORITHMS,
  AccessTokenVerifier,
  type AccessTokenVerifierOptions,
  canonicalResource,
  type PublicJwk,
  type SigningKeySet,
  type VerifiedAccessToken,
} from './access-token.verifier';
export { bearerChallenge, type BearerChallengeParameters, type BearerErrorCode, parseBearerAuthorization } from './bearer';
export { type RevocableToken, RevocationList } from './revocation-list';
export { KeySetUnavailableError, TokenRejectedError, TokenRejectionReason } from './token-rejected.error';
