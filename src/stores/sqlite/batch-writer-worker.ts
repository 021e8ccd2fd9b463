/**
 * The SQLite writer thread: it owns the process's connection and runs the
 * batch writer on whatever queued up while the previous batch was being
 * committed, so the commit's fsync is paid once for many requests and never
 * on the HTTP thread.
 */
import { receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { BatchWriter, type BatchWriterOptions } from './batch-writer.js';
import { crossesAsJson, decodeCalls, encodeReplies, type Answered, type Crossing } from './handoff.js';
import type { Call } from './sqlite-operations.js';

export interface WorkerInit extends BatchWriterOptions {
  port: MessagePort;
  batchCallsMax: number;
}

const init = workerData as WorkerInit;
const batchWriter = new BatchWriter(init);
const port = init.port;

/** The port closes once the database has: the thread ends, and the store sees it exit. */
function shutDown(): void {
  void batchWriter.close().then(() => port.close());
}

port.on('message', (first: Crossing<Call> | 'close') => {
  if (first === 'close') {
    shutDown();
    return;
  }
  // Everything that queued up during the last commit joins this one, up to
  // the batch limit; the rest stays queued and starts the next batch.
  const calls = decodeCalls(first);
  let closing = false;
  for (
    let next = calls.length < init.batchCallsMax ? receiveMessageOnPort(port) : undefined;
    next !== undefined;
    next = calls.length < init.batchCallsMax ? receiveMessageOnPort(port) : undefined
  ) {
    if (next.message === 'close') {
      closing = true;
      break;
    }
    calls.push(...decodeCalls(next.message as Crossing<Call>));
  }
  const asJson = crossesAsJson(calls);
  batchWriter.run(calls, (replies, commitSeconds) => port.postMessage({ replies: encodeReplies(replies, asJson), commitSeconds } satisfies Answered));
  if (closing) shutDown();
});
port.postMessage('ready');
