/** The background run: its job as the server reports it, live through server-sent events (polling
 *  GET /api/run when the event stream breaks), and a callback when a run ends. */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ApiFailure, RunJob, del, get, post, runEvents } from "./api";

export interface RunState {
  job: RunJob | null;
  error: string | null;
  start: (target: string) => Promise<void>;
  cancel: () => Promise<void>;
}

export function useRun(onFinished: () => void): RunState {
  const [job, setJob] = useState<RunJob | null>(null);
  const [error, setError] = useState<string | null>(null);
  const source = useRef<EventSource | null>(null);
  const poller = useRef<number | null>(null);
  const finished = useRef(onFinished);
  finished.current = onFinished;
  /** The job whose end was reported: the event stream and the check on connect may both see it. */
  const reported = useRef<string | null>(null);

  const stopWatching = useCallback(() => {
    source.current?.close();
    source.current = null;
    if (poller.current !== null) window.clearInterval(poller.current);
    poller.current = null;
  }, []);

  const settle = useCallback((next: RunJob) => {
    setJob(next);
    if (next.state !== "running") {
      stopWatching();
      if (reported.current !== next.id) {
        reported.current = next.id;
        finished.current();
      }
    }
  }, [stopWatching]);

  const poll = useCallback(() => {
    if (poller.current !== null) return;
    poller.current = window.setInterval(async () => {
      try {
        const data = await get<{ job: RunJob }>("api/run");
        if (data.job.state === "running") setJob(data.job); else settle(data.job);
      } catch (exc) {
        setError(exc instanceof ApiFailure ? exc.message : String(exc));
      }
    }, 1000);
  }, [settle]);

  const watch = useCallback(() => {
    stopWatching();
    const events = runEvents();
    source.current = events;
    events.addEventListener("progress", (e) => setJob(JSON.parse((e as MessageEvent).data) as RunJob));
    events.addEventListener("done", (e) => settle(JSON.parse((e as MessageEvent).data) as RunJob));
    // a run may end before the stream connects: ask once connected
    events.onopen = () => {
      get<{ job: RunJob }>("api/run").then((data) => {
        if (data.job.state !== "running") settle(data.job);
      }).catch(() => undefined);
    };
    events.onerror = () => {
      // the stream broke (server restarted, proxy): fall back to polling until the job ends
      events.close();
      source.current = null;
      poll();
    };
  }, [poll, settle, stopWatching]);

  useEffect(() => {
    get<{ job: RunJob }>("api/run").then((data) => {
      setJob(data.job);
      reported.current = data.job.id;
      if (data.job.state === "running") watch();
    }).catch((exc) => setError(exc instanceof ApiFailure ? exc.message : String(exc)));
    return stopWatching;
  }, [watch, stopWatching]);

  const start = useCallback(async (target: string) => {
    setError(null);
    try {
      // the whole review is the run without a target
      const data = await post<{ job: RunJob }>("api/run", { target: target === "all" ? null : target, args: [] });
      setJob(data.job);
      watch();
    } catch (exc) {
      setError(exc instanceof ApiFailure ? exc.message : String(exc));
    }
  }, [watch]);

  const cancel = useCallback(async () => {
    try {
      await del<{ job: RunJob }>("api/run");
    } catch (exc) {
      setError(exc instanceof ApiFailure ? exc.message : String(exc));
    }
  }, []);

  return { job, error, start, cancel };
}
