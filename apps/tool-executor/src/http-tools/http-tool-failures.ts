import { Injectable, Logger } from '@nestjs/common';
import type { ToolLastError } from '../catalog/catalog.types';
import { ToolLastErrorsRepository } from '../catalog/tool-last-errors.repository';

/** Which tool failed: its catalog id (the record's key) and, for the log, its tenant and name. */
export interface FailedTool {
  id: string;
  tenant: string;
  name: string;
}

/** Where an HTTP tool's outbound failures go for its administrators; injected so the runner is tested without a database. */
export abstract class HttpToolFailures {
  /** Keeps `failure` as the tool's last one; never throws and never delays the call that failed. */
  abstract record(tool: FailedTool, failure: ToolLastError): void;
}

/**
 * Writes each tool's last failure to the executor's database, so every replica shows the same one
 * and it survives a restart. At most one write per tool is in flight on a replica: failures arriving
 * meanwhile replace the pending one, which is written next. A flood of failing calls costs one row
 * update at a time per tool, and the row always ends with the latest failure.
 */
@Injectable()
export class PersistedHttpToolFailures extends HttpToolFailures {
  private readonly logger = new Logger(PersistedHttpToolFailures.name);
  /** Per tool id: the failure waiting for the write in flight to finish (`undefined`: none waiting). */
  private readonly writing = new Map<string, ToolLastError | undefined>();

  constructor(private readonly repository: ToolLastErrorsRepository) {
    super();
  }

  record(tool: FailedTool, failure: ToolLastError): void {
    if (this.writing.has(tool.id)) {
      this.writing.set(tool.id, failure);
      return;
    }
    this.writing.set(tool.id, undefined);
    void this.write(tool, failure);
  }

  private async write(tool: FailedTool, failure: ToolLastError): Promise<void> {
    for (let next: ToolLastError | undefined = failure; next;) {
      try {
        await this.repository.save(tool.id, next);
      } catch (error) {
        this.logger.warn(`the last failure of tool ${tool.tenant}/${tool.name} (error id ${next.errorId}) could not be stored: ${(error as Error).message}`);
      }
      next = this.writing.get(tool.id);
      if (next) this.writing.set(tool.id, undefined);
    }
    this.writing.delete(tool.id);
  }
}
