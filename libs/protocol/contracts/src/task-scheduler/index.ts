export * from './task.contracts';
export * from './task-admin.contracts';
