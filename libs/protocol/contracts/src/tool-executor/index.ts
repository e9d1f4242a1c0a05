export * from './tool.contracts';
export * from './virtual-server.contracts';
export * from './catalog-admin.contracts';
