export * from './call.contracts';
export * from './session.contracts';
