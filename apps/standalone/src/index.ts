/** The embedded platform as a function, for the e2e tests and the dev-cluster script's banner. */
export { readyBanner, type VirtualServerEndpoint, virtualServerUrl } from './ready-banner';
export { type StandaloneHandle, type StandaloneOptions, startStandalone } from './start-standalone';
