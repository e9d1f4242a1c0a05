/**
 * NATS contracts: one `defineRpc`/`defineEvent` object per message, grouped by the app that owns it.
 * Versioning is additive: new optional fields within a major; a breaking change gets a new `.v<n>.` subject.
 */
export * from './define-contract';
export * from './common/principal';
export * from './common/wire-error';
export * from './common/tenant';
export * from './common/input-required';
export * as toolExecutor from './tool-executor';
export * as resourceStore from './resource-store';
export { SKILL_NAME_PATTERN, type SkillEntry, type SkillSummary } from './resource-store/skill.contracts';
export * as sessionBroker from './session-broker';
export * as authorizationServer from './authorization-server';
export * as taskScheduler from './task-scheduler';
