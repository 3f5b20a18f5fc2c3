/** `edge-search feed FILE`: streams a catalogue into a search app, optionally as a full feed, and waits for indexing. */
import type { EdgeSearchClient, FeedSummary, QueueListResponse } from '../../client/src/index.ts';
import { fileStream, inspect, ndjsonLines } from './input.ts';
import { Progress } from './progress.ts';

export interface FeedCommand {
  file: string;
  type: 'svc' | 'reporting';
  full: boolean;
  keepGoing: boolean;
  concurrency: number;
  chunkSize: number;
  wait: boolean;
}

/** Rejected or failed entries printed at the end; all are counted. */
const SHOWN_ERRORS = 10;

/** Feeds the file and prints a summary; answers the exit code (1 when any entry was rejected or ended ERROR). */
export async function feedCommand(client: EdgeSearchClient, command: FeedCommand, out: NodeJS.WriteStream): Promise<number> {
  const file = await inspect(command.file);
  const progress = new Progress(out);
  let read = 0;
  const onRead = (bytes: number) => (read += bytes);
  const feed = async (): Promise<FeedSummary> => {
    if (file.format === 'json') {
      const answer = await client.upload(fileStream(command.file, file, onRead), {
        type: command.type,
        details: 'errors',
        contentType: 'application/json',
      });
      const errors = answer.documents.map((d) => ({ position: d.position ?? 0, documentId: d.documentId, error: d.error ?? '' }));
      return {
        sent: answer.accepted + answer.rejected,
        accepted: answer.accepted,
        rejected: answer.rejected,
        errors,
        firstId: answer.firstId,
        lastId: answer.lastId,
      };
    }
    const summary = await client.feed(ndjsonLines(command.file, file, onRead), {
      type: command.type,
      concurrency: command.concurrency,
      chunkSize: command.chunkSize,
      onProgress: (p) => progress.update({ documents: p.accepted + p.rejected, rejected: p.rejected, fraction: read / file.size }),
    });
    progress.done();
    return summary;
  };

  const started = Date.now();
  let summary: FeedSummary;
  if (command.full) {
    summary = (
      await client.fullFeed(
        async () => {
          const result = await feed();
          if (result.rejected && !command.keepGoing) {
            printRejected(out, result);
            throw new Error(
              `${result.rejected} entries were rejected: the full feed was cancelled and the live index is unchanged (--keep-going swaps anyway)`,
            );
          }
          return result;
        },
        { keepGoing: command.keepGoing },
      )
    ).result;
  } else summary = await feed();
  const seconds = (Date.now() - started) / 1000;
  out.write(`Sent ${summary.sent} entries in ${seconds.toFixed(1)} s: ${summary.accepted} queued, ${summary.rejected} rejected\n`);
  printRejected(out, summary);

  let failed = 0;
  if (command.wait && summary.firstId !== null) {
    const after = summary.firstId - 1;
    const counts = await client.waitForQueue(after, { onPoll: (answer) => progressLine(out, answer) });
    if (command.full) {
      const status = await client.waitForFullFeed();
      out.write(
        `Full feed ${status.state === 'NONE' || status.state === 'FINISHED' ? 'swapped' : status.state}: ${status.liveDocuments} documents live\n`,
      );
    }
    failed = counts.counts.ERROR;
    out.write(`Indexed: ${describeCounts(counts)}\n`);
    if (failed) {
      const { entries } = await client.queueEntries({ state: 'ERROR', after, limit: SHOWN_ERRORS });
      for (const entry of entries) out.write(`  ERROR ${entry.documentId} (entry ${entry.id}): ${entry.error ?? ''}\n`);
    }
  }
  return summary.rejected || failed ? 1 : 0;
}

function printRejected(out: NodeJS.WriteStream, summary: FeedSummary): void {
  for (const entry of summary.errors.slice(0, SHOWN_ERRORS)) {
    out.write(`  rejected entry ${entry.position + 1}${entry.documentId ? ` (${entry.documentId})` : ''}: ${entry.error}\n`);
  }
  if (summary.rejected > SHOWN_ERRORS) out.write(`  … ${summary.rejected - SHOWN_ERRORS} more rejected\n`);
}

let lastWaitLine = 0;
function progressLine(out: NodeJS.WriteStream, answer: QueueListResponse): void {
  if (Date.now() - lastWaitLine < 5000) return;
  lastWaitLine = Date.now();
  out.write(`Waiting for indexing: ${describeCounts(answer)}\n`);
}

/** `FINISHED 63436, ERROR 0, …`: the states that have entries. */
export function describeCounts(answer: QueueListResponse): string {
  const present = Object.entries(answer.counts).filter(([, n]) => n > 0);
  return present.length ? present.map(([state, n]) => `${state} ${n}`).join(', ') : 'no entries';
}
