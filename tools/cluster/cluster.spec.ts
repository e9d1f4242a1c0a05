import { describe, expect, it } from 'vitest';
import { APP_PORTS, isPortRace, planProcesses, processEnv, redact } from './cluster.mjs';

describe('cluster', () => {
  describe('planProcesses', () => {
    it('puts each app on its standard port and brokers on 3000, 3001, ... when ports are standard', async () => {
      const plan = await planProcesses({ brokerReplicas: 2, ports: 'standard' });
      expect(plan).toEqual([
        { app: 'tool-executor', name: 'tool-executor', port: APP_PORTS['tool-executor'] },
        { app: 'authorization-server', name: 'authorization-server', port: 3101 },
        { app: 'resource-store', name: 'resource-store', port: 3103 },
        { app: 'task-scheduler', name: 'task-scheduler', port: 3104 },
        { app: 'session-broker', name: 'session-broker-1', port: 3000 },
        { app: 'session-broker', name: 'session-broker-2', port: 3001 },
      ]);
    });

    it('asks for a free port per process when ports are free', async () => {
      let next = 40_000;
      const plan = await planProcesses({ brokerReplicas: 1, ports: 'free', freePort: async () => next++ });
      expect(plan.map((entry) => entry.port)).toEqual([40_000, 40_001, 40_002, 40_003, 40_004]);
      expect(plan.at(-1)).toEqual({ app: 'session-broker', name: 'session-broker', port: 40_004 });
    });

    it('refuses a replica count outside 1..16', async () => {
      await expect(planProcesses({ brokerReplicas: 0, ports: 'standard' })).rejects.toThrow(/brokerReplicas/);
      await expect(planProcesses({ brokerReplicas: 1.5, ports: 'standard' })).rejects.toThrow(/brokerReplicas/);
    });
  });

  describe('processEnv', () => {
    const plan = [
      { app: 'authorization-server', name: 'authorization-server', port: 3101 },
      { app: 'tool-executor', name: 'tool-executor', port: 3102 },
      { app: 'session-broker', name: 'session-broker-1', port: 3000 },
      { app: 'session-broker', name: 'session-broker-2', port: 3001 },
    ];

    it('gives a broker its own replica id, the first broker URL as the canonical public URL and the issuer, on loopback, writing JSON records', () => {
      const env = processEnv(
        { app: 'session-broker', name: 'session-broker-2', port: 3001 },
        { NATS_URL: 'nats://n:4222', HOST: '0.0.0.0', PORT: '9', LOG_FORMAT: 'pretty' },
        plan,
      );
      expect(env).toEqual({
        NATS_URL: 'nats://n:4222',
        HOST: '127.0.0.1',
        PORT: '3001',
        LOG_FORMAT: 'json',
        REPLICA_ID: 'session-broker-2',
        PUBLIC_URL: 'http://127.0.0.1:3000',
        AUTH_ISSUER: 'http://127.0.0.1:3101/oauth',
        ANNOUNCE_VIRTUAL_SERVERS: 'false',
      });
    });

    it('gives every broker replica the request state keys, and no other app', () => {
      const env = { REQUEST_STATE_KEYS: 'k1:secret', NATS_URL: 'nats://n:4222' };
      for (const entry of plan.filter((candidate) => candidate.app === 'session-broker')) {
        expect(processEnv(entry, env, plan)).toMatchObject({ REQUEST_STATE_KEYS: 'k1:secret' });
      }
      expect(processEnv({ app: 'tool-executor', name: 'tool-executor', port: 3102 }, env, plan)).not.toHaveProperty('REQUEST_STATE_KEYS');
    });

    it('tells the authorization server its own public URL and the MCP public URL', () => {
      const env = processEnv({ app: 'authorization-server', name: 'authorization-server', port: 3101 }, {}, plan);
      expect(env).toMatchObject({ AUTH_PUBLIC_URL: 'http://127.0.0.1:3101', MCP_PUBLIC_URL: 'http://127.0.0.1:3000' });
    });

    it('keeps public URLs the caller set and adds nothing of its own to other apps', () => {
      const env = { PUBLIC_URL: 'https://mcp.example.test/', AUTH_PUBLIC_URL: 'https://auth.example.test' };
      expect(processEnv({ app: 'session-broker', name: 'session-broker', port: 3000 }, env, plan)).toMatchObject({
        PUBLIC_URL: 'https://mcp.example.test',
        AUTH_ISSUER: 'https://auth.example.test/oauth',
      });
      expect(processEnv({ app: 'tool-executor', name: 'tool-executor', port: 3102 }, { DATABASE_URL: 'postgres://x/y' }, plan)).toEqual({
        DATABASE_URL: 'postgres://x/y',
        HOST: '127.0.0.1',
        PORT: '3102',
        LOG_FORMAT: 'json',
      });
    });
  });

  describe('isPortRace', () => {
    it('recognises a start that failed because a port was taken, and nothing else', () => {
      expect(
        isPortRace(
          new Error('session-broker exited during start (code 1); its last lines:\n  Error: listen EADDRINUSE: address already in use 127.0.0.1:41107'),
        ),
      ).toBe(true);
      expect(
        isPortRace(new Error('session-broker exited during start (exit code 1); its last lines:\n  port 41107 is in use (set PORT to another port)')),
      ).toBe(true);
      expect(isPortRace(new Error('tool-executor exited during start (code 1): migration failed'))).toBe(false);
      expect(isPortRace('EADDRINUSE')).toBe(false);
    });
  });

  describe('redact', () => {
    it('hides the password of a URL', () => {
      expect(redact('postgres://app:secret@db:5432/mcp')).toBe('postgres://app:***@db:5432/mcp');
    });
  });
});
