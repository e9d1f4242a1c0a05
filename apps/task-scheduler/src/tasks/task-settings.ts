import type { TtlLimits } from './task-rules';

/** The effective settings of the tasks feature, resolved from `TaskSchedulerOptions`. */
export interface TaskSettings extends TtlLimits {
  pollIntervalMs: number;
  tenantConcurrency: number;
  /**
   * Enqueue every `working` task again at boot: true when the work queue lives in this process's memory
   * (embedded mode), whose jobs died with the previous process; JetStream keeps them (distributed mode).
   */
  requeueOnBoot: boolean;
}

/** Injection token of the effective `TaskSettings`. */
export const TASK_SETTINGS = Symbol('TASK_SETTINGS');
