export * from './call.contracts';
export * from './session.contracts';
export * from './resource-interest.contracts';
