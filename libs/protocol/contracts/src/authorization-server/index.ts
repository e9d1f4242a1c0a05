export * from './signing-key.contracts';
export * from './access.contracts';
