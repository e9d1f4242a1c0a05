export * from './signing-key.contracts';
