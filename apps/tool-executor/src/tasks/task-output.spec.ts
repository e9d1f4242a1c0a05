import { describe, expect, it } from 'vitest';
import { sessionBroker, taskScheduler } from '@mcp-platform/protocol-contracts';
import { RELATED_TASK_META_KEY } from '@mcp-platform/protocol-mcp';
import type { MessageBus } from '@mcp-platform/shared-messaging';
import { TaskOutput } from './task-output';

const TASK_ID = 'task_0123456789abcdefABCD';
const related = { [RELATED_TASK_META_KEY]: { taskId: TASK_ID } };

/** A bus recording what the output emits and reports; `reportTaskInput` settles when the test says. */
function setup() {
  const emitted: Array<{ subject: string; payload: Record<string, unknown> }> = [];
  const reports: boolean[] = [];
  const pendingReports: Array<() => void> = [];
  let failReports = false;
  const bus = {
    emit: (contract: { subject: string }, payload: Record<string, unknown>) => void emitted.push({ subject: contract.subject, payload }),
    request: (contract: { subject: string }, payload: { waiting: boolean }) => {
      if (contract.subject !== taskScheduler.reportTaskInput.subject) throw new Error(`unexpected ${contract.subject}`);
      reports.push(payload.waiting);
      return new Promise((resolve, reject) => pendingReports.push(() => (failReports ? reject(new Error('scheduler away')) : resolve({}))));
    },
  } as unknown as MessageBus;
  const output = new TaskOutput(TASK_ID, 'session-1', bus);
  const settleReports = () => pendingReports.splice(0).forEach((settle) => settle());
  return { output, emitted, reports, settleReports, failNextReports: () => (failReports = true) };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe(TaskOutput, () => {
  it("sends progress and logs to the creating session's GET stream, with related-task in _meta (S-98, S-285)", () => {
    const { output, emitted, reports } = setup();
    output.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1, _meta: { mine: true } } });
    expect(emitted).toEqual([
      {
        subject: sessionBroker.sessionMessage.subject,
        payload: {
          sessionId: 'session-1',
          message: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1, _meta: { mine: true, ...related } } },
        },
      },
    ]);
    expect(output.sent).toBe(true);
    expect(reports).toEqual([]);
  });

  it('posts requests for the tasks/result streams and reports input_required while any waits, working once all are answered (S-286)', async () => {
    const { output, emitted, reports, settleReports } = setup();
    output.send({ jsonrpc: '2.0', id: 'r#1', method: 'roots/list' });
    output.send({ jsonrpc: '2.0', id: 'r#2', method: 'elicitation/create', params: { message: 'Go on?' } });
    expect(emitted).toEqual([
      {
        subject: sessionBroker.taskMessage.subject,
        payload: { taskId: TASK_ID, message: { jsonrpc: '2.0', id: 'r#1', method: 'roots/list', params: { _meta: related } } },
      },
      {
        subject: sessionBroker.taskMessage.subject,
        payload: { taskId: TASK_ID, message: { jsonrpc: '2.0', id: 'r#2', method: 'elicitation/create', params: { message: 'Go on?', _meta: related } } },
      },
    ]);
    output.settled('r#1');
    output.settled('unknown#1');
    output.settled('r#2');
    // Reports go one after another: the second waits for the first.
    await flush();
    expect(reports).toEqual([true]);
    settleReports();
    await flush();
    expect(reports).toEqual([true, false]);
    settleReports();
    await output.end({ result: {} });
  });

  it('sends the unanswered requests again, and only those, when its owner awaits it; that session may answer then', () => {
    const { output, emitted } = setup();
    output.send({ jsonrpc: '2.0', id: 'r#1', method: 'roots/list' });
    output.send({ jsonrpc: '2.0', id: 'r#2', method: 'roots/list' });
    output.settled('r#1');
    emitted.length = 0;
    expect(output.alsoAnsweredBy('session-2')).toBe(false);
    output.awaitedBy('session-2');
    expect(emitted.map((event) => (event.payload['message'] as { id: string }).id)).toEqual(['r#2']);
    expect(output.alsoAnsweredBy('session-2')).toBe(true);
    expect(output.alsoAnsweredBy('session-3')).toBe(false);
  });

  it('ends only once the scheduler heard every report, even a failed one', async () => {
    const { output, reports, settleReports, failNextReports } = setup();
    failNextReports();
    output.send({ jsonrpc: '2.0', id: 'r#1', method: 'roots/list' });
    let ended = false;
    const ending = output.end({ result: {} }).then(() => (ended = true));
    await flush();
    expect(ended).toBe(false);
    settleReports();
    await ending;
    expect(reports).toEqual([true]);
  });
});
