import { Injectable } from '@nestjs/common';
import { MessageBus } from '@mcp-platform/shared-messaging';
import type { BuiltinTool } from './builtin-tool';
import { CONFORMANCE_TOOLS } from './conformance.tools';
import { CONFORMANCE_INPUT_TOOLS } from './conformance-input.tools';
import { CONFORMANCE_TASK_TOOLS } from './conformance-tasks.tools';
import { conformanceTriggerTools } from './conformance-triggers.tools';
import { DEMO_TOOLS } from './demo.tools';

/** The built-in tool implementations of this process, by handler name (`config.handler` of a tool row). */
@Injectable()
export class BuiltinToolRegistry {
  private readonly byHandler = new Map<string, BuiltinTool>();
  /** Every fixture the conformance suites call on `conformance/everything`. */
  private readonly conformance: BuiltinTool[];

  /** `bus`: what the list-change fixtures write through; without it (unit tests) they are absent. */
  constructor(bus?: MessageBus) {
    this.conformance = [...CONFORMANCE_TOOLS, ...CONFORMANCE_INPUT_TOOLS, ...CONFORMANCE_TASK_TOOLS, ...(bus ? conformanceTriggerTools(bus) : [])];
    for (const tool of [...this.conformance, ...DEMO_TOOLS]) {
      if (this.byHandler.has(tool.handler)) throw new Error(`duplicate built-in handler ${tool.handler}`);
      this.byHandler.set(tool.handler, tool);
    }
  }

  /** The built-in tool of a handler name: its code and what it asks before its task (`beforeTask`). */
  tool(handler: string): Pick<BuiltinTool, 'run' | 'beforeTask'> | undefined {
    return this.byHandler.get(handler);
  }

  /** The tools of one seed set (`conformance` or `demo`). */
  set(name: 'conformance' | 'demo'): BuiltinTool[] {
    return name === 'conformance' ? this.conformance : DEMO_TOOLS;
  }
}
