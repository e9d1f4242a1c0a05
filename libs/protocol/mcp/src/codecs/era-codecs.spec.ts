import { describe, expect, it } from 'vitest';
import { JsonRpcErrorCode } from '../error-codes';
import { ModernMetaKey } from '../meta';
import type { NeutralTask } from './era-codec';
import { codecOfVersion } from './era-codecs';
import { legacyCodec } from './legacy.codec';
import { modernCodec } from './modern.codec';

const serverInfo = { name: 'demo/default', version: '1.0.0' };
const legacy = { protocolVersion: '2025-11-25', serverInfo };
const modern = { protocolVersion: '2026-07-28', serverInfo };
const tool = { name: 'calculate', inputSchema: { type: 'object' }, execution: { taskSupport: 'optional' } };
const task: NeutralTask = {
  taskId: 't1',
  status: 'completed',
  createdAt: '2026-12-01T00:00:00Z',
  lastUpdatedAt: '2026-12-01T00:00:01Z',
  ttlMs: 60_000,
  pollIntervalMs: 1_000,
  result: { content: [] },
};

describe('era codecs', () => {
  describe('has', () => {
    it('knows which era has which method, tasks from 2025-11-25 on (S-13, S-272)', () => {
      expect(legacyCodec.has('initialize', '2025-03-26')).toBe(true);
      expect(legacyCodec.has('server/discover', '2025-11-25')).toBe(false);
      expect(legacyCodec.has('tasks/get', '2025-06-18')).toBe(false);
      expect(legacyCodec.has('tasks/get', '2025-11-25')).toBe(true);
      expect(modernCodec.has('initialize', '2026-07-28')).toBe(false);
      expect(modernCodec.has('ping', '2026-07-28')).toBe(false);
      expect(modernCodec.has('tasks/update', '2026-07-28')).toBe(true);
      expect(modernCodec.has('tasks/result', '2026-07-28')).toBe(false);
      expect(modernCodec.has('no/such', '2026-07-28')).toBe(false);
      expect([legacyCodec.methodNotFoundStatus, modernCodec.methodNotFoundStatus]).toEqual([200, 404]);
    });

    it('asks modern task requests for the tasks extension, and nothing of legacy ones (S-295)', () => {
      expect(modernCodec.requiredCapabilities('tasks/get')).toEqual({ extensions: { 'io.modelcontextprotocol/tasks': {} } });
      expect(modernCodec.requiredCapabilities('tools/call')).toBeUndefined();
      expect(legacyCodec.requiredCapabilities('tasks/get')).toBeUndefined();
    });
  });

  describe('encodeResult', () => {
    it('stamps a modern result with resultType, caching hints and serverInfo, keeping the handler’s _meta (S-6, S-35, S-246)', () => {
      const encoded = modernCodec.encodeResult(
        'tools/list',
        { body: { tools: [tool], _meta: { trace: 1 } }, caching: { ttlMs: 5, cacheScope: 'private' } },
        modern,
      );
      expect(encoded).toEqual({
        tools: [{ name: 'calculate', inputSchema: { type: 'object' } }],
        ttlMs: 5,
        cacheScope: 'private',
        resultType: 'complete',
        _meta: { trace: 1, [ModernMetaKey.ServerInfo]: serverInfo },
      });
      // A method that is not cacheable gets no hints, whatever the handler said.
      expect(modernCodec.encodeResult('tools/call', { body: { content: [] }, caching: { ttlMs: 5, cacheScope: 'public' } }, modern)).not.toHaveProperty(
        'ttlMs',
      );
    });

    it('leaves a legacy result as the handler made it, but strips execution before 2025-11-25 (S-197)', () => {
      const result = { body: { tools: [tool] }, caching: { ttlMs: 5, cacheScope: 'public' as const } };
      expect(legacyCodec.encodeResult('tools/list', result, legacy)).toEqual({ tools: [tool] });
      expect(legacyCodec.encodeResult('tools/list', result, { ...legacy, protocolVersion: '2025-06-18' })).toEqual({
        tools: [{ name: 'calculate', inputSchema: { type: 'object' } }],
      });
    });

    it('words listed tasks the legacy way (S-277)', () => {
      expect(legacyCodec.encodeResult('tasks/list', { body: { tasks: [task], nextCursor: 'c' } }, legacy)).toEqual({
        tasks: [{ taskId: 't1', status: 'completed', createdAt: task.createdAt, lastUpdatedAt: task.lastUpdatedAt, ttl: 60_000, pollInterval: 1_000 }],
        nextCursor: 'c',
      });
    });
  });

  describe('encodeTask and encodeCancel', () => {
    it('words a created task per era: legacy { task } (S-276), modern resultType "task" (S-297)', () => {
      expect(legacyCodec.encodeTask('tools/call', task, legacy)).toEqual({ task: expect.objectContaining({ ttl: 60_000, pollInterval: 1_000 }) });
      expect(modernCodec.encodeTask('tools/call', task, modern)).toEqual(expect.objectContaining({ resultType: 'task', ttlMs: 60_000, pollIntervalMs: 1_000 }));
    });

    it('gives a modern tasks/get the detailed task with its result (S-300), a legacy one the task alone', () => {
      expect(modernCodec.encodeTask('tasks/get', task, modern)).toMatchObject({ result: { content: [] }, resultType: 'complete' });
      expect(legacyCodec.encodeTask('tasks/get', task, legacy)).not.toHaveProperty('result');
    });

    it('words a task in a status notification per era (S-284, S-304)', () => {
      expect(legacyCodec.encodeTaskStatus(task)).toEqual(expect.objectContaining({ ttl: 60_000 }));
      expect(modernCodec.encodeTaskStatus(task)).toEqual(expect.objectContaining({ ttlMs: 60_000, result: { content: [] } }));
      expect(modernCodec.encodeTaskStatus(task)).not.toHaveProperty('resultType');
    });

    it('refuses a terminal task’s cancel in the legacy era and acknowledges every cancel in the modern one (S-283, S-302)', () => {
      const refusal = { code: JsonRpcErrorCode.InvalidParams, message: 'terminal' };
      expect(legacyCodec.encodeCancel({ alreadyTerminal: refusal }, legacy)).toEqual({ error: refusal });
      expect(legacyCodec.encodeCancel({ task }, legacy)).toEqual({ result: expect.objectContaining({ taskId: 't1', ttl: 60_000 }) });
      expect(modernCodec.encodeCancel({ alreadyTerminal: refusal }, modern)).toEqual({
        result: { resultType: 'complete', _meta: { [ModernMetaKey.ServerInfo]: serverInfo } },
      });
    });
  });

  describe('encodeInputRequired', () => {
    it('carries input requests by result in the modern era only (S-60)', () => {
      expect(modernCodec.encodeInputRequired({ inputRequests: { a: {} }, requestState: 's' }, modern)).toEqual({
        resultType: 'input_required',
        inputRequests: { a: {} },
        requestState: 's',
        _meta: { [ModernMetaKey.ServerInfo]: serverInfo },
      });
      expect(legacyCodec.encodeInputRequired({ inputRequests: { a: {} } }, legacy)).toBeUndefined();
    });
  });

  describe('encodeError', () => {
    it('maps -32002 to -32602 in the modern era only (S-209, S-210), with each era’s HTTP status', () => {
      const notFound = { code: JsonRpcErrorCode.ResourceNotFound, message: 'Resource x not found', data: { uri: 'x' } };
      expect(legacyCodec.encodeError(notFound)).toEqual({ error: notFound, status: 200 });
      expect(modernCodec.encodeError(notFound)).toEqual({ error: { ...notFound, code: JsonRpcErrorCode.InvalidParams }, status: 200 });
      expect(modernCodec.encodeError({ code: JsonRpcErrorCode.MissingRequiredClientCapability, message: 'm' }).status).toBe(400);
      expect(modernCodec.encodeError({ code: JsonRpcErrorCode.MethodNotFound, message: 'm' }).status).toBe(404);
    });
  });

  describe('as a client', () => {
    it('puts the modern envelope in _meta beside the caller’s keys, and nothing on the legacy wire (S-31)', () => {
      const envelope = { protocolVersion: '2026-07-28', clientCapabilities: { sampling: {} }, logLevel: 'info' as const };
      expect(modernCodec.encodeRequestParams({ name: 't', _meta: { progressToken: 1 } }, envelope)).toEqual({
        name: 't',
        _meta: {
          progressToken: 1,
          [ModernMetaKey.ProtocolVersion]: '2026-07-28',
          [ModernMetaKey.ClientCapabilities]: { sampling: {} },
          [ModernMetaKey.LogLevel]: 'info',
        },
      });
      expect(legacyCodec.encodeRequestParams({ name: 't' }, envelope)).toEqual({ name: 't' });
    });

    it('reads a modern result by its resultType, and refuses one without (S-6)', () => {
      expect(modernCodec.decodeResult('tools/call', { resultType: 'complete', content: [] })).toEqual({ kind: 'complete', result: { content: [] } });
      expect(modernCodec.decodeResult('tools/call', { resultType: 'input_required', inputRequests: { a: {} }, requestState: 's' })).toEqual({
        kind: 'input_required',
        inputRequests: { a: {} },
        requestState: 's',
      });
      expect(modernCodec.decodeResult('tools/call', { resultType: 'task', taskId: 't' })).toEqual({ kind: 'task', task: { taskId: 't' } });
      expect(modernCodec.decodeResult('tools/call', { content: [] })).toMatchObject({ kind: 'invalid' });
    });

    it('reads a legacy CreateTaskResult as a task and anything else as complete', () => {
      expect(legacyCodec.decodeResult('tools/call', { task: { taskId: 't' } })).toEqual({ kind: 'task', task: { taskId: 't' } });
      expect(legacyCodec.decodeResult('tools/call', { content: [], resultType: 'complete' })).toEqual({ kind: 'complete', result: { content: [] } });
      expect(legacyCodec.decodeResult('tools/call', 'nope')).toMatchObject({ kind: 'invalid' });
    });
  });

  describe('codecOfVersion', () => {
    it('maps every revision to its era’s codec', () => {
      expect(codecOfVersion('2025-03-26')).toBe(legacyCodec);
      expect(codecOfVersion('2026-07-28')).toBe(modernCodec);
    });
  });
});
