export { Clock, ManualClock, SystemClock } from './clock';
export { IdSource, RandomIds, SequentialIds } from './ids';
