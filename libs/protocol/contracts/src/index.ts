/**
 * NATS contracts: one `defineRpc`/`defineEvent` object per message, grouped by the app that owns it.
 * Versioning is additive: new optional fields within a major; a breaking change gets a new `.v<n>.` subject.
 */
export * as authorizationServer from './authorization-server';
export * from './common/input-required';
export * from './common/principal';
export * from './common/tenant';
export * from './common/upstream-task';
export * from './common/wire-error';
export * from './define-contract';
export * as resourceStore from './resource-store';
export { SKILL_NAME_PATTERN, type SkillEntry, type SkillSummary } from './resource-store/skill.contracts';
export * as sessionBroker from './session-broker';
export * as taskScheduler from './task-scheduler';
export * as toolExecutor from './tool-executor';
