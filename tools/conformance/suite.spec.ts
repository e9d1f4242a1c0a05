import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  baselineVerdicts,
  judgeAgainstBaseline,
  judgeScenarios,
  parseScenarioListing,
  parseWireBaseline,
  readChecks,
  reportLines,
  scenarioOfResultsFolder,
  scenariosStarted,
  suiteDir,
  vacuousPass,
  wireOf,
} from './suite.mjs';

const ok = (id: string) => ({ id, status: 'SUCCESS' });
const failure = (id: string, errorMessage: string) => ({ id, status: 'FAILURE', errorMessage });
const warning = (id: string, description: string) => ({ id, status: 'WARNING', description });

/** The suite's output around its baseline verdicts, colours included, as 0.1.16 prints it. */
const BASELINE_LOG = [
  'Running active suite (30 scenarios) against http://127.0.0.1:3000/conformance/everything/mcp',
  '',
  '=== Running scenario: server-initialize ===',
  '=== Running scenario: tools-list ===',
  '=== Running scenario: ping ===',
  '',
  '\u001b[33mExpected failures (in baseline):\u001b[0m',
  '  ~ tools-list',
  '',
  '\u001b[31mStale baseline entries (now passing - remove from baseline):\u001b[0m',
  '  ✓ ping',
  '',
  '\u001b[31mUnexpected failures (not in baseline):\u001b[0m',
  '  ✗ server-initialize',
  '',
  '\u001b[31mBaseline is stale: update your expected-failures file to remove passing scenarios.\u001b[0m',
].join('\n');

describe('conformance suite runner', () => {
  describe('suiteDir', () => {
    it('keeps each suite and SDK version in its own cache folder, "range" when the SDK is not pinned', () => {
      expect(suiteDir('/cache', '0.1.16', '1.32.2')).toBe(join('/cache', 'suite-0.1.16-sdk-1.32.2'));
      expect(suiteDir('/cache', '0.2.0-alpha.12', undefined)).toBe(join('/cache', 'suite-0.2.0-alpha.12-sdk-range'));
    });
  });

  describe('scenarioOfResultsFolder', () => {
    it('reads the scenario from the folder the suite names after it and the time', () => {
      expect(scenarioOfResultsFolder('server-tools-call-simple-text-2026-12-01T23-02-45-962Z')).toBe('tools-call-simple-text');
      expect(scenarioOfResultsFolder('server-json-schema-2020-12-2026-12-01T23-02-48-592Z')).toBe('json-schema-2020-12');
      expect(scenarioOfResultsFolder('suite.log')).toBeUndefined();
    });
  });

  describe('scenariosStarted', () => {
    it('lists the scenarios in the order the suite ran them, once each', () => {
      expect(scenariosStarted(`${BASELINE_LOG}\n=== Running scenario: ping ===`)).toEqual(['server-initialize', 'tools-list', 'ping']);
    });
  });

  describe('baselineVerdicts', () => {
    it('reads the expected, stale and unexpected scenarios from the coloured output', () => {
      expect(baselineVerdicts(BASELINE_LOG)).toEqual({ expected: ['tools-list'], stale: ['ping'], unexpected: ['server-initialize'] });
    });

    it('reads nothing from a run without a baseline', () => {
      expect(baselineVerdicts('=== Running scenario: ping ===\nTest Results:\nPassed: 1/1')).toEqual({ expected: [], stale: [], unexpected: [] });
    });
  });

  describe('judgeScenarios', () => {
    it('passes a scenario whose checks all succeeded and fails one with a failed check, naming it', () => {
      const verdicts = judgeScenarios(['ping', 'tools-list'], { ping: [ok('ping')], 'tools-list': [ok('a'), failure('tools-list', 'no tools')] });
      expect(verdicts).toEqual([
        { scenario: 'ping', status: 'PASS', summary: '1/1 checks ok', notes: [] },
        { scenario: 'tools-list', status: 'FAIL', summary: '1/2 checks ok', notes: ['x tools-list: no tools'] },
      ]);
    });

    it('fails a scenario the suite started that left no checks.json', () => {
      expect(judgeScenarios(['server-sse-polling'], {})).toEqual([
        { scenario: 'server-sse-polling', status: 'FAIL', summary: 'no result', notes: ['x the scenario did not complete (no checks.json)'] },
      ]);
    });

    it('passes a scenario with a warning, and fails it under strict', () => {
      const checks = { 'server-sse-polling': [ok('server-sse-priming-event'), warning('server-sse-retry-field', 'SHOULD send retry')] };
      expect(judgeScenarios(['server-sse-polling'], checks)[0]).toMatchObject({ status: 'PASS', summary: '1/1 checks ok, 1 warning(s)' });
      expect(judgeScenarios(['server-sse-polling'], checks, { strict: true })[0]).toMatchObject({
        status: 'FAIL',
        notes: ['! server-sse-retry-field: SHOULD send retry'],
      });
    });

    it('fails a vacuous pass under strict only', () => {
      const vacuous = {
        id: 'tools-call-simple-text',
        status: 'SUCCESS',
        details: { result: { isError: true, content: [{ text: 'Unknown tool: test_simple_text' }] } },
      };
      expect(judgeScenarios(['tools-call-simple-text'], { 'tools-call-simple-text': [vacuous] })[0]?.status).toBe('PASS');
      expect(judgeScenarios(['tools-call-simple-text'], { 'tools-call-simple-text': [vacuous] }, { strict: true })[0]?.status).toBe('FAIL');
    });
    it('fails a scenario whose every check was skipped under strict only, saying why', () => {
      const skipped = {
        'sep-2640-skills-directory': [
          { id: 'sep-2640-capability-directory-read-flag', status: 'SKIPPED', errorMessage: 'Server did not declare the extension' },
        ],
      };
      expect(judgeScenarios(['sep-2640-skills-directory'], skipped)[0]?.status).toBe('PASS');
      expect(judgeScenarios(['sep-2640-skills-directory'], skipped, { strict: true })[0]).toMatchObject({
        status: 'FAIL',
        notes: ['- every check was skipped: Server did not declare the extension'],
      });
      const partly = { s: [ok('a'), { id: 'b', status: 'SKIPPED', errorMessage: 'optional' }] };
      expect(judgeScenarios(['s'], partly, { strict: true })[0]?.status).toBe('PASS');
    });
  });

  describe('vacuousPass', () => {
    it('spots a pass on a missing tool or prompt, and leaves a real pass alone', () => {
      expect(vacuousPass({ id: 'tools-call-error', status: 'SUCCESS', details: { result: { content: [{ text: 'Tool x not found' }] } } })).toMatch(
        /^\? tools-call-error/,
      );
      expect(vacuousPass({ id: 'sep-2322', status: 'SUCCESS', details: { error: { message: 'Prompt p not found' } } })).toMatch(/fixture is missing/);
      expect(
        vacuousPass({
          id: 'tools-call-simple-text',
          status: 'SUCCESS',
          details: { result: { content: [{ text: 'This is a simple text response for testing.' }] } },
        }),
      ).toBeUndefined();
    });
  });

  describe('reportLines', () => {
    it('prints a line per scenario, the notes of failures, and the baseline verdicts', () => {
      const lines = reportLines(
        [
          { scenario: 'ping', status: 'PASS', summary: '1/1 checks ok', notes: [] },
          { scenario: 'tools-list', status: 'FAIL', summary: '0/1 checks ok', notes: ['x tools-list: no tools'] },
        ],
        { expected: ['tools-list'], stale: [], unexpected: [] },
      );
      expect(lines).toEqual([
        'PASS  ping        1/1 checks ok',
        'FAIL  tools-list  0/1 checks ok',
        '        x tools-list: no tools',
        '# baseline: expected failure tools-list',
      ]);
    });
  });

  describe('readChecks', () => {
    let dir: string | undefined;
    afterEach(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('reads the checks.json of every scenario folder and ignores the rest', () => {
      dir = mkdtempSync(join(tmpdir(), 'conformance-results-'));
      mkdirSync(join(dir, 'server-ping-2026-12-01T23-02-45-920Z'));
      writeFileSync(join(dir, 'server-ping-2026-12-01T23-02-45-920Z', 'checks.json'), JSON.stringify([ok('ping')]));
      mkdirSync(join(dir, 'server-tools-list-2026-12-01T23-02-45-952Z'));
      writeFileSync(join(dir, 'notes.txt'), 'not a scenario');
      expect(readChecks(dir)).toEqual({ ping: [ok('ping')] });
    });
  });

  describe('parseScenarioListing', () => {
    it('reads each scenario with its revisions, extensions included', () => {
      const listing = 'Server scenarios (test against a server):\n  - tools-list [2025-06-18,2025-11-25,2026-07-28]\n  - tasks-lifecycle [extension]\n';
      expect([...parseScenarioListing(listing)]).toEqual([
        ['tools-list', ['2025-06-18', '2025-11-25', '2026-07-28']],
        ['tasks-lifecycle', ['extension']],
      ]);
    });
  });

  describe('wireOf', () => {
    it('runs a dated scenario at 2025-11-25 and a 2026-only or extension one at 2026-07-28, unless the leg names a wire', () => {
      expect(wireOf(['2025-06-18', '2026-07-28'], undefined)).toBe('2025-11-25');
      expect(wireOf(['2026-07-28'], undefined)).toBe('2026-07-28');
      expect(wireOf(['extension'], undefined)).toBe('2026-07-28');
      expect(wireOf(['2025-06-18', '2025-11-25'], '2026-07-28')).toBe('2026-07-28');
    });
  });

  describe('parseWireBaseline', () => {
    it('reads scenario@wire items and skips comments', () => {
      const text = '# why\nserver:\n  - tasks-lifecycle@2026-07-28\n  - ping@2025-11-25  # a note\n  - not-an-entry\n';
      expect([...parseWireBaseline(text)]).toEqual(['tasks-lifecycle@2026-07-28', 'ping@2025-11-25']);
    });
  });

  describe('judgeAgainstBaseline', () => {
    const verdict = (scenario: string, status: 'PASS' | 'FAIL') => ({ scenario, status, summary: '', notes: [] });

    it('accepts expected failures, and fails on an unexpected failure, a passing entry or one that never ran', () => {
      expect(judgeAgainstBaseline([verdict('a@2026-07-28', 'FAIL'), verdict('b@2026-07-28', 'PASS')], new Set(['a@2026-07-28']))).toEqual({
        ok: true,
        lines: ['# baseline: expected failure a@2026-07-28'],
      });
      expect(judgeAgainstBaseline([verdict('a@2026-07-28', 'FAIL')], new Set()).ok).toBe(false);
      expect(judgeAgainstBaseline([verdict('a@2026-07-28', 'PASS')], new Set(['a@2026-07-28'])).lines).toEqual([
        '# baseline: STALE entry a@2026-07-28 (it passes now: remove it from the baseline)',
      ]);
      expect(judgeAgainstBaseline([], new Set(['gone@2025-11-25']))).toEqual({
        ok: false,
        lines: ['# baseline: STALE entry gone@2025-11-25 (the suite no longer runs it)'],
      });
    });
  });
});
