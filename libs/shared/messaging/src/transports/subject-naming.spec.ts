import { describe, expect, it } from 'vitest';
import { SubjectNaming } from './subject-naming';

const contract = Object.freeze({ subject: 'tool-executor.v1.tool.call' });

describe('SubjectNaming', () => {
  describe('without a prefix', () => {
    const naming = new SubjectNaming();

    it('keeps subjects, queue groups and the inbox as NATS names them', () => {
      expect(naming.prefix).toBe('');
      expect(naming.subject('session-broker.v1.call.notified.replica-a')).toBe('session-broker.v1.call.notified.replica-a');
      expect(naming.subjectOf(contract)).toBe('tool-executor.v1.tool.call');
      expect(naming.queue('tool-executor')).toBe('tool-executor');
      expect(naming.inboxPrefix).toBe('_INBOX');
    });

    it('treats an empty prefix as none', () => {
      expect(new SubjectNaming('').subjectOf(contract)).toBe(contract.subject);
    });
  });

  describe('with a prefix', () => {
    const naming = new SubjectNaming('staging');

    it('puts the prefix before every subject as its own token', () => {
      expect(naming.subject('session-broker.v1.call.notified.replica-a')).toBe('staging.session-broker.v1.call.notified.replica-a');
      expect(naming.subjectOf(contract)).toBe('staging.tool-executor.v1.tool.call');
    });

    it('prefixes queue groups and the reply inbox', () => {
      expect(naming.queue('tool-executor')).toBe('staging.tool-executor');
      expect(naming.inboxPrefix).toBe('staging._INBOX');
    });

    it('gives the same string for a contract every time (computed once per contract)', () => {
      const first = naming.subjectOf(contract);
      expect(naming.subjectOf(contract)).toBe(first);
      expect(naming.subjectOf({ subject: 'tool-executor.v1.tool.list' })).toBe('staging.tool-executor.v1.tool.list');
    });

    it('keeps two prefixes apart', () => {
      expect(new SubjectNaming('prod').subjectOf(contract)).not.toBe(naming.subjectOf(contract));
    });
  });

  describe('constructor', () => {
    it('accepts letters, digits, _ and -', () => {
      expect(new SubjectNaming('e2e_abc-123').prefix).toBe('e2e_abc-123');
    });

    it('refuses a prefix that would add tokens, wildcards or spaces', () => {
      for (const bad of ['a.b', '*', '>', 'a b', 'a.>']) expect(() => new SubjectNaming(bad), bad).toThrow(/subject prefix/);
    });
  });
});
