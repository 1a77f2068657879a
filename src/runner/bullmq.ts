/**
 * The cluster runner: searches are BullMQ jobs in Redis. API processes only
 * enqueue; worker processes run them with the same search job as the embedded
 * runner. Professional searches have the higher BullMQ priority.
 *
 * A worker that dies (kill -9) stops renewing its job's lock; after
 * `lockMs` another worker's stalled check puts the job back in the queue and a
 * worker resumes the search from its stored outcomes (the store refuses a
 * platform twice). A worker that stops cleanly (SIGTERM) puts its jobs back at
 * once. A search whose job fails for good is marked `error`. BullMQ priorities
 * are strict, so workers promote free searches that waited too long.
 *
 * A Redis that comes back empty (restarted without persistence, flushed) has
 * lost the queue but not the store of record (PostgreSQL): workers watch for
 * a marker key that only an emptied Redis lacks, and the one that sets it
 * again puts the store's unfinished searches back in the queue, once across
 * the cluster.
 */
import { hostname } from 'node:os';
import { type ConnectionOptions, type Job, Queue, WaitingError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { withDeadline } from '../redis/unavailable.js';
import type { SearchRecord, Tier } from '../store/store.js';
import { notAcceptingError, queueFullError, type Runner, type RunnerStats } from './runner.js';
import { failSearch, runSearchJob, SearchCancelledError, type SearchJobDeps } from './search-job.js';

export interface BullMqRunnerOptions {
  /** Redis connection options for BullMQ (it opens its own connections). */
  readonly connection: ConnectionOptions;
  /** BullMQ key prefix. @default 'userscout' */
  readonly prefix?: string;
  /** Queue name. @default 'searches' */
  readonly queueName?: string;
  /** Run searches in this process (worker role); otherwise only enqueue (API role). */
  readonly work: boolean;
  /** Searches this worker runs at once. */
  readonly concurrency: number;
  /** Searches that may wait; more are refused with 503. */
  readonly maxQueued: number;
  /** Retry-After (seconds) of that 503. */
  readonly retryAfterSeconds: number;
  /** Lock on a running job, renewed every half; a dead worker's search resumes elsewhere after about this long. @default 30000 */
  readonly lockMs?: number;
  /** Longest wait for one queue operation before answering 503. @default 3000 */
  readonly timeoutMs?: number;
  /** Runs a failed job again this many times in all (a Redis outage, say) before the search is marked failed. @default 5 */
  readonly attempts?: number;
  /**
   * A free search waiting this long gets the professional priority (behind the
   * professional searches already waiting), so free searches always make progress. @default 30000
   */
  readonly freeAgingMs?: number;
  /** A command connection to the same Redis, for the recovery pass's marker; without it, no recovery pass. */
  readonly commands?: Redis;
  /** How often a worker looks whether Redis came back empty (the recovery pass), ms. @default 5000 */
  readonly recoveryCheckMs?: number;
  /** This worker ran the recovery pass, putting `requeued` searches back in the queue (logs; the cluster test counts passes). */
  readonly onRecovered?: (requeued: number, worker: string) => void;
  readonly onError?: (error: unknown, searchId?: string) => void;
  /**
   * Called in the worker once a search has run to its end, inside its job (so a
   * worker that dies during it leaves the job to another, which calls it again):
   * what follows a search (its follow-ups, src/service.ts).
   */
  readonly afterSearch?: (search: SearchRecord) => Promise<void>;
  /** A worker took a search (logs; the multi-process test watches for it). */
  readonly onStart?: (search: SearchRecord, worker: string) => void;
}

interface JobData {
  readonly searchId: string;
}

/** BullMQ priority: lower runs first. */
const PRIORITY: Readonly<Record<Tier, number>> = { professional: 1, free: 2 };

export class BullMqRunner implements Runner {
  readonly #deps: SearchJobDeps;
  readonly #options: BullMqRunnerOptions;
  readonly #name = `${hostname()}:${process.pid}`;
  #queue: Queue<JobData> | undefined;
  #worker: Worker<JobData> | undefined;
  #aging: NodeJS.Timeout | undefined;
  #recovery: NodeJS.Timeout | undefined;
  #accepting = false;
  #stopping = false;
  /** The searches this process runs, each with what cancels it. */
  readonly #cancels = new Map<string, AbortController>();

  constructor(deps: SearchJobDeps, options: BullMqRunnerOptions) {
    this.#deps = deps;
    this.#options = options;
  }

  get #timeoutMs(): number {
    return this.#options.timeoutMs ?? 3_000;
  }

  #bounded<T>(work: Promise<T>): Promise<T> {
    return withDeadline(work, this.#timeoutMs);
  }

  #requireQueue(): Queue<JobData> {
    if (!this.#queue || !this.#accepting) throw notAcceptingError();
    return this.#queue;
  }

  async admit(): Promise<void> {
    const { queued } = await this.stats();
    if (queued >= this.#options.maxQueued) throw queueFullError(this.#options.retryAfterSeconds);
  }

  async enqueue(search: SearchRecord): Promise<void> {
    await this.admit();
    await this.#bounded(this.#add(this.#requireQueue(), search));
  }

  #add(queue: Queue<JobData>, search: SearchRecord) {
    return queue.add(
      'search',
      { searchId: search.id },
      {
        // One job per search: adding it again (resume at start) is a no-op while it exists.
        jobId: search.id,
        priority: PRIORITY[search.tier],
        attempts: this.#options.attempts ?? 5,
        backoff: { type: 'fixed', delay: 2_000 },
        removeOnComplete: true,
        removeOnFail: { age: 86_400 },
      },
    );
  }

  async queuedAhead(tier: Tier): Promise<number> {
    const queue = this.#requireQueue();
    const counts = await this.#bounded(queue.getCountsPerPriority([PRIORITY.professional, PRIORITY.free]));
    const pro = counts[String(PRIORITY.professional)] ?? 0;
    return tier === 'professional' ? pro : pro + (counts[String(PRIORITY.free)] ?? 0);
  }

  async stats(): Promise<RunnerStats> {
    const queue = this.#requireQueue();
    const c = await this.#bounded(queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active'));
    return {
      queued: (c.waiting ?? 0) + (c.prioritized ?? 0) + (c.delayed ?? 0),
      running: c.active ?? 0,
    };
  }

  /** Never waits for Redis: when it is down, the queue and worker connect once it is back. */
  async start(): Promise<void> {
    const { connection, prefix = 'userscout', queueName = 'searches' } = this.#options;
    this.#stopping = false;
    this.#queue = new Queue<JobData>(queueName, { connection, prefix });
    this.#queue.on('error', (error) => this.#options.onError?.(error));
    this.#accepting = true;
    if (!this.#options.work) return;

    const lockMs = this.#options.lockMs ?? 30_000;
    this.#worker = new Worker<JobData>(
      queueName,
      // Three parameters: BullMQ then passes a signal, aborted by cancelAllJobs().
      (job, token, signal) => this.#process(job, token, signal),
      {
        connection,
        prefix,
        name: this.#name,
        concurrency: this.#options.concurrency,
        lockDuration: lockMs,
        stalledInterval: lockMs,
        // Each crash of a worker running it counts; a search survives a few.
        maxStalledCount: 3,
      },
    );
    this.#worker.on('error', (error) => this.#options.onError?.(error));
    this.#worker.on('failed', (job, error) => {
      if (!job || !isFinalFailure(job)) return;
      const { searchId } = job.data;
      failSearch(searchId, `the search could not be finished: ${error.message}`, this.#deps).catch(
        (failure: unknown) => this.#options.onError?.(failure, searchId),
      );
    });
    // Searches whose job was lost (e.g. Redis restarted without persistence) or failed while
    // the store was unreachable (so the search could not be marked failed) are queued again.
    void this.#requeueUnfinished().catch((error: unknown) => this.#options.onError?.(error));
    this.#recovery = setInterval(
      () => void this.#recoverIfEmptied().catch((error: unknown) => this.#options.onError?.(error)),
      this.#options.recoveryCheckMs ?? 5_000,
    );
    this.#recovery.unref();
    const agingMs = this.#options.freeAgingMs ?? 30_000;
    this.#aging = setInterval(
      () => void this.#promoteWaitingFree(agingMs).catch((error: unknown) => this.#options.onError?.(error)),
      Math.max(100, Math.min(agingMs / 2, 10_000)),
    );
    this.#aging.unref();
  }

  /** Gives free searches waiting longer than `agingMs` the professional priority (bounded batch). */
  async #promoteWaitingFree(agingMs: number): Promise<void> {
    const queue = this.#queue;
    if (!queue) return;
    const cutoff = Date.now() - agingMs;
    const waiting = await this.#bounded(queue.getJobs(['prioritized'], 0, 499, true));
    for (const job of waiting) {
      if (job.priority === PRIORITY.free && job.timestamp <= cutoff)
        await this.#bounded(job.changePriority({ priority: PRIORITY.professional }));
    }
  }

  /**
   * The recovery pass. The marker key is missing only from a Redis that lost its data
   * (or never had it: the first start, where the pass finds every job in place); the
   * worker whose SET NX wins runs the pass, the others see the marker and skip it. A
   * pass that fails gives the marker up, so the next check of any worker tries again.
   */
  async #recoverIfEmptied(): Promise<void> {
    const client = this.#options.commands;
    if (!client || !this.#queue || !this.#accepting) return;
    const marker = `${this.#options.prefix ?? 'userscout'}:queue-epoch`;
    const claimed = await this.#bounded(client.set(marker, `${this.#name} ${Date.now()}`, 'NX'));
    if (claimed !== 'OK') return;
    try {
      this.#options.onRecovered?.(await this.#requeueUnfinished(), this.#name);
    } catch (error) {
      await this.#bounded(client.del(marker)).catch(() => {});
      throw error;
    }
  }

  /** Queues again the store's unfinished searches that have no job or a failed one; how many. */
  async #requeueUnfinished(): Promise<number> {
    const queue = this.#queue;
    if (!queue) return 0;
    let requeued = 0;
    for (const search of await this.#deps.store.unfinishedSearches()) {
      if (!this.#accepting) break;
      const job = await this.#bounded(queue.getJob(search.id));
      if (!job) await this.#bounded(this.#add(queue, search));
      else if (await this.#bounded(job.isFailed())) await this.#bounded(job.retry());
      else continue;
      requeued++;
    }
    return requeued;
  }

  async #process(job: Job<JobData>, token: string | undefined, signal: AbortSignal | undefined) {
    const search = await this.#deps.store.getSearch(job.data.searchId);
    // Swept, cancelled, or finished by a worker that died before it could complete the job
    // (perhaps before what follows it was done: done here, once, see afterSearch).
    if (search?.state === 'completed') return this.#afterSearch(search);
    if (!search || search.state === 'error') return;
    this.#options.onStart?.(search, this.#name);
    // A search cancelled through another process ends as an error: its `done` event says so here.
    const cancel = new AbortController();
    this.#cancels.set(search.id, cancel);
    const unsubscribe = this.#deps.events.subscribe(search.id, (event) => {
      if (event.type === 'done' && event.state === 'error') cancel.abort(new Error('search cancelled'));
    });
    try {
      await runSearchJob(
        search,
        this.#deps,
        signal ? AbortSignal.any([signal, cancel.signal]) : cancel.signal,
      );
      await this.#afterSearch(search);
    } catch (error) {
      if (error instanceof SearchCancelledError && this.#stopping) {
        // Back in the queue at once, for another worker or the next start.
        await this.#bounded(job.moveToWait(token)).catch(() => {});
        throw new WaitingError();
      }
      // Cancelled: the search is ended already, with what it found; the job is done.
      if (error instanceof SearchCancelledError && cancel.signal.aborted) return;
      throw error;
    } finally {
      unsubscribe();
      this.#cancels.delete(search.id);
    }
  }

  /** Never fails the job: the search is over whatever happens here. */
  async #afterSearch(search: SearchRecord): Promise<void> {
    await this.#options
      .afterSearch?.(search)
      .catch((error: unknown) => this.#options.onError?.(error, search.id));
  }

  async cancel(searchId: string): Promise<void> {
    this.#cancels.get(searchId)?.abort(new Error('search cancelled'));
    // Waiting: out of the queue. Running elsewhere: that worker hears the search's `done` event
    // (and, should it miss it, finds the search ended before storing it as completed).
    const queue = this.#queue;
    if (queue) await this.#bounded(queue.remove(searchId)).catch(() => {});
  }

  async stop(): Promise<void> {
    this.#accepting = false;
    this.#stopping = true;
    clearInterval(this.#aging);
    clearInterval(this.#recovery);
    const worker = this.#worker;
    const queue = this.#queue;
    this.#worker = undefined;
    this.#queue = undefined;
    // Bounded: with Redis down, BullMQ's close waits for it to come back. The process exits
    // after stopping anyway; a job left active is taken over once its lock expires.
    if (worker) {
      worker.cancelAllJobs('runner stopping');
      await withDeadline(worker.close(), 8_000).catch(() => {
        worker.close(true).catch(() => {});
      });
    }
    if (queue) await withDeadline(queue.close(), 3_000).catch(() => {});
  }
}

/** Whether BullMQ will not run this job again. */
function isFinalFailure(job: Job): boolean {
  return job.attemptsMade >= (job.opts.attempts ?? 1) || job.finishedOn !== undefined;
}
