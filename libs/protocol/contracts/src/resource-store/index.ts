export * from './resource.contracts';
export * from './prompt.contracts';
export * from './resource-admin.contracts';
export * from './uri-template';
