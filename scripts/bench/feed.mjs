// Step 2: a full feed of the whole catalogue through the public API, timed until it is searchable.
import { APP, feedingCall, TENANT, timedSearch } from './api.mjs';
import { elapsedMs, now, thousands } from './stats.mjs';

/** A one-line progress bar on stderr (plain ANSI); without a terminal, one line per 10 %. */
export function progressBar(label, total, { rate = true } = {}) {
  const tty = process.stderr.isTTY;
  const start = now();
  let lastDecile = -1;
  const render = (done, extra = '') => {
    const share = total ? Math.min(1, done / total) : 0;
    const seconds = elapsedMs(start) / 1000;
    const perSecond = seconds > 0 ? done / seconds : 0;
    const line = `${label} ${'#'.repeat(Math.round(share * 30)).padEnd(30, '.')} ${thousands(done)}/${thousands(total)} ${(share * 100).toFixed(0)}% ${rate ? `${thousands(perSecond)}/s ` : ''}${extra}`;
    if (tty) process.stderr.write(`\r\x1b[K${line}`);
    else if (Math.floor(share * 10) > lastDecile) {
      lastDecile = Math.floor(share * 10);
      process.stderr.write(`${line}\n`);
    }
  };
  return {
    update: render,
    done(count = total, extra = '') {
      render(count, extra);
      if (tty) process.stderr.write('\n');
    },
  };
}

/** Runs `tasks` (an iterable of functions answering promises, taken one at a time) with at most `concurrency` in flight. */
async function pool(tasks, concurrency) {
  const iterator = tasks[Symbol.iterator]();
  const worker = async () => {
    for (let task = iterator.next(); !task.done; task = iterator.next()) await task.value();
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** Arrays of `size` items of an iterable, made as they are asked for (the scale catalogue is never whole in memory). */
function* chunksOf(items, size) {
  let chunk = [];
  for (const item of items) {
    chunk.push(item);
    if (chunk.length === size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length) yield chunk;
}

async function fullFeedStatus(baseUrl, token, app) {
  const res = await fetch(`${baseUrl}/api/v1/data/fullfeed/status/${TENANT}/${app}`, { headers: { 'X-Service-Token': token } });
  return res.ok ? res.json() : undefined;
}

/**
 * Start, bulk chunks (`chunkSize` documents, `concurrency` requests in flight), end; then polls an empty-query
 * search until it counts every document. Answers the timings, the server's CPU time when `cpu` (a function
 * answering its CPU seconds so far, `process-cpu.mjs`) is given, and the entries the bulk answers marked ERROR.
 */
export async function fullFeed({ baseUrl, feedingToken, envelopes, chunkSize, concurrency, timeoutMs, app = APP, cpu }) {
  const call = (path, body) => feedingCall(baseUrl, feedingToken, 'POST', path, body, app);
  const rejected = [];
  const bar = progressBar('feeding  ', envelopes.length);
  let sent = 0;

  const start = now();
  const cpuAtStart = cpu?.();
  await call('/api/v1/data/fullfeed/start/{app}', {});
  await pool(
    chunksOf(envelopes, chunkSize).map((chunk) => async () => {
      const answer = await call('/api/v1/data/bulk/svc/{app}', chunk);
      for (const entry of answer?.documents ?? []) if (entry.state === 'ERROR') rejected.push(entry);
      sent += chunk.length;
      bar.update(sent);
    }),
    concurrency,
  );
  bar.done();
  const uploadMs = elapsedMs(start);
  const cpuAtUpload = cpu?.();
  // From the moment end is sent: the end call itself may wait for the swap.
  const endCalledMs = elapsedMs(start);
  await call('/api/v1/data/fullfeed/end/{app}', {});

  // Counts staged documents while the cycle is active, then the searchable total.
  const waiting = progressBar('indexing ', envelopes.length, { rate: false });
  const deadline = Date.now() + timeoutMs;
  const expected = envelopes.length - rejected.length;
  // Each status call counts every shard's staged rows: a large feed is polled less often, not to slow its swap.
  const pollMs = Math.min(1000, Math.max(100, envelopes.length / 1000));
  let total;
  let status;
  for (;;) {
    status = await fullFeedStatus(baseUrl, feedingToken, app);
    ({
      body: {
        result: { total },
      },
    } = await timedSearch(baseUrl, { q: '', rows: 1 }, app));
    waiting.update(status?.active ? status.stagedDocuments : total, status ? `${status.state}, ${status.pendingOperations} pending` : '');
    if (total >= expected) break;
    if (Date.now() > deadline) {
      waiting.done(total);
      throw new Error(
        `The catalogue was not searchable ${timeoutMs / 1000} s after the full feed ended: total ${total}, status ${JSON.stringify(status)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  waiting.done(total);
  const searchableMs = elapsedMs(start);
  const cpuAtSearchable = cpu?.();

  return {
    documents: envelopes.length,
    chunkSize,
    concurrency,
    uploadSeconds: uploadMs / 1000,
    endToSearchableSeconds: (searchableMs - endCalledMs) / 1000,
    totalSeconds: searchableMs / 1000,
    documentsPerSecond: envelopes.length / (searchableMs / 1000),
    searchableTotal: total,
    // Until the last bulk answered, and from then until searchable (the queue drained, the swap, the status polls).
    cpuSeconds: cpu && { upload: cpuAtUpload - cpuAtStart, toSearchable: cpuAtSearchable - cpuAtUpload },
    rejected: rejected.length,
    rejectedSample: rejected.slice(0, 3),
    finalStatus: status,
  };
}
