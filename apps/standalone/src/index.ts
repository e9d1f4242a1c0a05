/** The embedded platform as a function, for the e2e tests and the dev-cluster script's banner. */
export { startStandalone, type StandaloneOptions, type StandaloneHandle } from './start-standalone';
export { readyBanner, virtualServerUrl, type VirtualServerEndpoint } from './ready-banner';
