export * from './access.contracts';
export * from './signing-key.contracts';
