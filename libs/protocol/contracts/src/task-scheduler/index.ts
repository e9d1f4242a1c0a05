export * from './task.contracts';
