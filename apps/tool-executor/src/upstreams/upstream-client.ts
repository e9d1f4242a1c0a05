import { Client, type JSONRPCErrorResponse, type JSONRPCResponse } from '@modelcontextprotocol/client';

/**
 * The SDK's client, as the executor's upstream connections use it, reading one answer more: a
 * `CreateTaskResult` of a 2026-07-28 upstream (SEP-2663 `resultType: "task"`; only a request that
 * declared the tasks extension gets one: the executor's task path, `ModernTaskEra`). The SDK 2.x client
 * knows no such result type and would refuse the answer, so it is handed over as a complete result in
 * the 2025-11-25 shape (`{ task: { taskId, pollInterval } }`), which the task path reads for both eras.
 * Everything else is the SDK's.
 */
export class UpstreamClient extends Client {
  protected override _onresponse(response: JSONRPCResponse | JSONRPCErrorResponse): void {
    const result = (response as { result?: Record<string, unknown> }).result;
    if (result?.['resultType'] !== 'task') return super._onresponse(response);
    const { resultType: _task, _meta: _dropped, pollIntervalMs, ...task } = result;
    const created = { ...task, ...(typeof pollIntervalMs === 'number' ? { pollInterval: pollIntervalMs } : {}) };
    super._onresponse({ ...response, result: { resultType: 'complete', content: [], task: created } } as JSONRPCResponse);
  }
}
