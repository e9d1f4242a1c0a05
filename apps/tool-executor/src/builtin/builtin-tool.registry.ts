import { Injectable } from '@nestjs/common';
import type { ToolImplementation } from '../tools/tool-context';
import type { BuiltinTool } from './builtin-tool';
import { CONFORMANCE_TOOLS } from './conformance.tools';
import { DEMO_TOOLS } from './demo.tools';

/** The built-in tool implementations of this process, by handler name (`config.handler` of a tool row). */
@Injectable()
export class BuiltinToolRegistry {
  private readonly byHandler = new Map<string, BuiltinTool>();

  constructor() {
    for (const tool of [...CONFORMANCE_TOOLS, ...DEMO_TOOLS]) {
      if (this.byHandler.has(tool.handler)) throw new Error(`duplicate built-in handler ${tool.handler}`);
      this.byHandler.set(tool.handler, tool);
    }
  }

  implementation(handler: string): ToolImplementation | undefined {
    return this.byHandler.get(handler)?.run;
  }

  /** The tools of one seed set (`conformance` or `demo`). */
  set(name: 'conformance' | 'demo'): BuiltinTool[] {
    return name === 'conformance' ? CONFORMANCE_TOOLS : DEMO_TOOLS;
  }
}
