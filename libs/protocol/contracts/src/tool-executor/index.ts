export * from './tool.contracts';
export * from './virtual-server.contracts';
