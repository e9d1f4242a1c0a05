/** What every app needs to run and be watched: pino logging, health probes, and one way to boot. */
export { LoggingModule, type LoggingOptions } from './logging.module';
export { defaultLogFormat, PRETTY_LOG_OPTIONS, type LogFormat } from './log-output';
export { PlatformLogger } from './platform-logger';
export { HealthModule } from './health.module';
export { HEALTH_CHECKS, type ReadinessCheck } from './health.constants';
export { DEFAULT_HTTP_TIMEOUTS, DEFAULT_SHUTDOWN_GRACE_MS, runService, type HttpTimeouts, type RunServiceOptions } from './run-service';
export { drainUntil, isDrainable, type OnDrain } from './drain';
export { REPORT_INTERVAL_MS, ReportThrottle } from './report-throttle';
export { exitOnStartFailure, startFailureMessage, type StartFailureOptions } from './start-failure';
