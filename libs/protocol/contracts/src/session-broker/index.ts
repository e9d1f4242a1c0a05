export * from './call.contracts';
export * from './resource-interest.contracts';
export * from './session.contracts';
