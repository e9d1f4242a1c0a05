export * from './catalog-admin.contracts';
export * from './tool.contracts';
export * from './upstream-admin.contracts';
export * from './upstream-reads.contracts';
export * from './virtual-server.contracts';
