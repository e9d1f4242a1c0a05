import { Client, type JSONRPCErrorResponse, type JSONRPCResponse } from '@modelcontextprotocol/client';

/**
 * The `_meta` key under which a `tools/call` answer that created a task (SEP-2663 `CreateTaskResult`,
 * `resultType: "task"`) reaches the executor: the SDK 2.x client knows no such result type and would
 * refuse the answer, so {@link UpstreamClient} hands it over as a complete result carrying it.
 */
export const UPSTREAM_TASK_META = 'mcp-platform/upstream-task';

/**
 * The SDK's client, as the executor's upstream connections use it, reading one answer more: a
 * `CreateTaskResult` of a 2026-07-28 upstream (only a request that declared the tasks extension gets
 * one: the executor's task path, `UpstreamTasks`). Everything else is the SDK's.
 */
export class UpstreamClient extends Client {
  protected override _onresponse(response: JSONRPCResponse | JSONRPCErrorResponse): void {
    const result = (response as { result?: Record<string, unknown> }).result;
    if (result?.['resultType'] !== 'task') return super._onresponse(response);
    const { resultType: _task, _meta: _dropped, ...task } = result;
    super._onresponse({ ...response, result: { resultType: 'complete', content: [], _meta: { [UPSTREAM_TASK_META]: task } } } as JSONRPCResponse);
  }
}
