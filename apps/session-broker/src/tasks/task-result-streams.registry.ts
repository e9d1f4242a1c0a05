import { Injectable } from '@nestjs/common';
import type { LazyResponse } from '../streams/lazy-response';

/** One legacy `tasks/result` exchange waiting on this replica. */
interface ResultStream {
  response: LazyResponse;
  /** The ids of the requests already written here: a request sent again (a stream opened) goes out once per stream. */
  written: Set<string | number>;
}

/**
 * The legacy `tasks/result` exchanges open on this replica, by task: where a running task's requests for
 * its client go (S-286: "typically delivered on the stream of the client's `tasks/result` call"). Only its
 * owner's exchanges are held (`TaskMethods.result` reads the task as the caller first), in whichever of
 * the owner's sessions; the run takes the answers from those sessions (S-325).
 */
@Injectable()
export class TaskResultStreams {
  private readonly byTask = new Map<string, Set<ResultStream>>();

  /** Holds `response` for the task's messages until the returned function is called. */
  attach(taskId: string, response: LazyResponse): () => void {
    const stream: ResultStream = { response, written: new Set() };
    const streams = this.byTask.get(taskId) ?? new Set<ResultStream>();
    streams.add(stream);
    this.byTask.set(taskId, streams);
    return () => {
      streams.delete(stream);
      if (streams.size === 0 && this.byTask.get(taskId) === streams) this.byTask.delete(taskId);
    };
  }

  /** Writes a message of the task on its open streams (a request once per stream); how many took it. */
  deliver(taskId: string, message: Record<string, unknown>): number {
    const id = message['id'];
    const requestId = typeof id === 'string' || typeof id === 'number' ? id : undefined;
    let delivered = 0;
    for (const stream of this.byTask.get(taskId) ?? []) {
      if (!stream.response.open) continue;
      if (requestId !== undefined) {
        if (stream.written.has(requestId)) continue;
        stream.written.add(requestId);
      }
      if (stream.response.notify(message)) delivered += 1;
    }
    return delivered;
  }

  get size(): number {
    return this.byTask.size;
  }
}
