export * from './prompt.contracts';
export * from './resource.contracts';
export * from './resource-admin.contracts';
export * from './resource-upload.contracts';
export * from './skill.contracts';
export * from './upstream-items.contracts';
export * from './uri-template';
