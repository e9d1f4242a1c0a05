/** What every app needs to run and be watched: pino logging, health probes, and one way to boot. */
export { drainUntil, isDrainable, type OnDrain } from './drain';
export { HEALTH_CHECKS, type ReadinessCheck } from './health.constants';
export { HealthModule } from './health.module';
export { defaultLogFormat, type LogFormat, PRETTY_LOG_OPTIONS } from './log-output';
export { LoggingModule, type LoggingOptions } from './logging.module';
export { PlatformLogger } from './platform-logger';
export { REPORT_INTERVAL_MS, ReportThrottle } from './report-throttle';
export { DEFAULT_HTTP_TIMEOUTS, DEFAULT_SHUTDOWN_GRACE_MS, type HttpTimeouts, runService, type RunServiceOptions } from './run-service';
export { exitOnStartFailure, startFailureMessage, type StartFailureOptions } from './start-failure';
