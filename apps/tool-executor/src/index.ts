/** The tool executor's feature module, for the embedded host (`apps/standalone`). */
export { upstreamEnv, upstreamOptionsOf } from './config/env.schema';
export { TOOL_EXECUTOR_CONNECTION } from './tool-executor.constants';
export { ToolExecutorModule } from './tool-executor.module';
export type { TaskWorkerOptions, ToolExecutorOptions } from './tool-executor.options';
export type { UpstreamOptions } from './upstreams/upstreams.constants';
