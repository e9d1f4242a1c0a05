import { describe, expect, it } from 'vitest';
import { snakeCase, SnakeNamingStrategy } from './snake-naming.strategy';

describe('snakeCase', () => {
  it('splits camelCase and PascalCase words', () => {
    expect(snakeCase('createdAt')).toBe('created_at');
    expect(snakeCase('VirtualServerTool')).toBe('virtual_server_tool');
    expect(snakeCase('timeoutMs')).toBe('timeout_ms');
  });

  it('keeps acronyms together', () => {
    expect(snakeCase('HTTPTool')).toBe('http_tool');
    expect(snakeCase('toolId')).toBe('tool_id');
  });
});

describe(SnakeNamingStrategy, () => {
  const strategy = new SnakeNamingStrategy();

  describe('tableName', () => {
    it('derives the name from the class when none is given', () => {
      expect(strategy.tableName('VirtualServer', undefined)).toBe('virtual_server');
    });
    it('keeps an explicit name as written', () => {
      expect(strategy.tableName('VirtualServerEntity', 'virtual_servers')).toBe('virtual_servers');
    });
  });

  describe('columnName', () => {
    it('snake-cases the property and the embedded prefixes', () => {
      expect(strategy.columnName('inputSchema', undefined, [])).toBe('input_schema');
      expect(strategy.columnName('zoneName', undefined, ['address'])).toBe('address_zone_name');
    });
    it('keeps an explicit column name', () => {
      expect(strategy.columnName('inputSchema', 'schema_in', [])).toBe('schema_in');
    });
  });

  describe('joinColumnName', () => {
    it('joins relation and referenced column', () => {
      expect(strategy.joinColumnName('tenant', 'id')).toBe('tenant_id');
    });
  });
});
