export * from './resource.contracts';
export * from './prompt.contracts';
