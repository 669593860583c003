/** The shell: three views (overview, map, screening) chosen by the URL hash, and what they share: the
 *  workspace status, the run job and which work is selected. */
import { useCallback, useEffect, useState } from "preact/hooks";
import { ApiFailure, Status, get, token } from "./api";
import { Overview } from "./views/Overview";
import { MapView } from "./views/MapView";
import { Screening } from "./views/Screening";
import { useRun } from "./run";

type View = "overview" | "map" | "screening";
const VIEWS: { id: View; label: string }[] = [
  { id: "overview", label: "Overview" },
  { id: "map", label: "Map" },
  { id: "screening", label: "Screening" },
];

function viewFromHash(): View {
  const hash = window.location.hash.replace(/^#\/?/, "").split("?")[0];
  return (VIEWS.find((v) => v.id === hash)?.id ?? "overview") as View;
}

export function App() {
  const [view, setView] = useState<View>(viewFromHash());
  const [status, setStatus] = useState<Status | null>(null);
  const [statusError, setStatusError] = useState<string | null>(null);
  /** Bumped whenever results may have changed (a run ended): views that read artifacts reload. */
  const [generation, setGeneration] = useState(0);

  const refreshStatus = useCallback(async () => {
    try {
      setStatus(await get<Status>("api/status"));
      setStatusError(null);
    } catch (exc) {
      setStatusError(exc instanceof ApiFailure ? exc.message : String(exc));
    }
  }, []);

  const run = useRun(() => {
    setGeneration((g) => g + 1);
    void refreshStatus();
  });

  useEffect(() => {
    void refreshStatus();
    const onHash = () => setView(viewFromHash());
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, [refreshStatus]);

  if (!token) {
    return (
      <main class="shell" data-testid="no-token">
        <p role="alert">This page needs the token the server printed: open the URL that <code>b2g gui</code> gave
          (…/?token=…).</p>
      </main>
    );
  }

  return (
    <div class="shell" data-testid="app" data-view={view}>
      <header class="topbar">
        <h1>bib2graph</h1>
        <nav aria-label="Views" role="tablist">
          {VIEWS.map((v) => (
            <a key={v.id} href={`#${v.id}`} role="tab" aria-selected={view === v.id} data-testid={`tab-${v.id}`}
               class={view === v.id ? "active" : ""}>{v.label}</a>
          ))}
        </nav>
        <span class="runchip" data-testid="run-chip" data-state={run.job?.state ?? "idle"} aria-live="polite">
          {run.job?.state === "running"
            ? `running ${run.job.target ?? ""} ${run.job.progress ? `${run.job.progress.done}/${run.job.progress.total}` : ""}`
            : status ? (status.up_to_date ? "up to date" : "out of date") : ""}
        </span>
      </header>
      {statusError && <p class="error" role="alert" data-testid="status-error">{statusError}</p>}
      <main class="content">
        {view === "overview" && <Overview status={status} run={run} refresh={refreshStatus} />}
        {view === "map" && <MapView generation={generation} />}
        {view === "screening" && <Screening onDecided={refreshStatus} />}
      </main>
    </div>
  );
}
