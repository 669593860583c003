/** Overview: each phase's state and why it is stale, the counts, the PRISMA flow, and the Run button
 *  with live progress and the log of a run that failed. */
import { useEffect, useState } from "preact/hooks";
import { ApiFailure, Status, get } from "../api";
import type { RunState } from "../run";
import { Prisma, PrismaDiagram } from "../components/PrismaDiagram";

const PHASE_ORDER = ["seed", "chain", "corpus", "networks", "exports", "report"];
/** What the Run button can run up to: `networks` is the cheap target that refreshes the map. */
const TARGETS = ["all", "seed", "chain", "corpus", "networks", "exports", "report"];

/** The phase a job belongs to, from its rule name (jobs are named `rule` or `rule:network`). */
function phaseOf(rule: string): string {
  if (rule.startsWith("export")) return "exports";
  if (rule.startsWith("report")) return "report";
  if (["network", "networks", "layout", "evidence", "metrics"].some((r) => rule.startsWith(r))) return "networks";
  return rule;
}

export function Overview({ status, run, refresh }: { status: Status | null; run: RunState; refresh: () => Promise<void> }) {
  const [prisma, setPrisma] = useState<Prisma | null>(null);
  const [prismaError, setPrismaError] = useState<string | null>(null);
  const [target, setTarget] = useState("networks");

  useEffect(() => {
    get<{ prisma: Prisma }>("api/prisma")
      .then((d) => { setPrisma(d.prisma); setPrismaError(null); })
      .catch((exc) => setPrismaError(exc instanceof ApiFailure ? exc.message : String(exc)));
  }, [status]);

  const job = run.job;
  const running = job?.state === "running";
  const phases = status ? [...PHASE_ORDER.filter((p) => p in status.phases),
                           ...Object.keys(status.phases).filter((p) => !PHASE_ORDER.includes(p))] : [];
  return (
    <section class="overview" aria-labelledby="overview-title" data-testid="overview">
      <h2 id="overview-title">Overview</h2>
      <div class="cards">
        <section class="card" aria-labelledby="phases-title">
          <h3 id="phases-title">Phases</h3>
          {!status ? <p>Loading…</p> : (
            <table class="phases" data-testid="phases">
              <thead><tr><th scope="col">phase</th><th scope="col">state</th><th scope="col">why</th></tr></thead>
              <tbody>
                {phases.map((phase) => {
                  const jobs = status.jobs.filter((j) => j.state !== "complete" && phaseOf(j.rule) === phase);
                  return (
                    <tr key={phase} data-testid={`phase-${phase}`} data-state={status.phases[phase]}>
                      <th scope="row">{phase}</th>
                      <td><span class={`state ${status.phases[phase]}`}>{status.phases[phase]}</span></td>
                      <td>
                        {jobs.length > 0 && (
                          <details>
                            <summary>{jobs.length} job{jobs.length > 1 ? "s" : ""}</summary>
                            <ul>{jobs.map((j) => (
                              <li key={j.job}><code>{j.job}</code> {j.state}{j.reasons.length ? `: ${j.reasons.join("; ")}` : ""}</li>
                            ))}</ul>
                          </details>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
        </section>
        <section class="card" aria-labelledby="counts-title">
          <h3 id="counts-title">Counts</h3>
          {status && (
            <dl class="counts" data-testid="counts">
              {["seeds", "candidates", "pool", "corpus", "accepted", "rejected", "pending"].map((k) => (
                <div key={k}><dt>{k}</dt><dd data-testid={`count-${k}`}>{String(status.counts[k] ?? "–")}</dd></div>
              ))}
            </dl>
          )}
          {status && (
            <table class="netcounts">
              <thead><tr><th scope="col">network</th><th scope="col">nodes</th><th scope="col">edges</th></tr></thead>
              <tbody>
                {Object.entries(status.counts.networks).map(([kind, c]) => (
                  <tr key={kind}><th scope="row"><a href={`#map?kind=${kind}`}>{kind}</a></th>
                    <td>{c.nodes ?? "–"}</td><td>{c.edges ?? "–"}</td></tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
        <section class="card run" aria-labelledby="run-title">
          <h3 id="run-title">Run</h3>
          <div class="row">
            <label>up to <select value={target} onChange={(e) => setTarget((e.target as HTMLSelectElement).value)}
                                 data-testid="run-target" disabled={running}>
              {TARGETS.map((t) => <option key={t} value={t}>{t}</option>)}
            </select></label>
            <button type="button" onClick={() => run.start(target)} disabled={running} data-testid="run-button">Run</button>
            {running && <button type="button" onClick={() => run.cancel()} data-testid="run-cancel">Cancel</button>}
            <button type="button" onClick={() => refresh()} class="ghost">Refresh</button>
          </div>
          <div data-testid="run-state" data-state={job?.state ?? "idle"} data-job={job?.id ?? ""} aria-live="polite">
            {job && job.state !== "idle" && (
              <p>
                <strong>{job.state}</strong> {job.target}
                {job.progress && job.progress.total > 0 && (
                  <> · <progress max={job.progress.total} value={job.progress.done} /> {job.progress.done}/{job.progress.total} jobs</>
                )}
              </p>
            )}
          </div>
          {run.error && <p class="error" role="alert" data-testid="run-error">{run.error}</p>}
          {job?.state === "failed" && job.result?.error && (
            <p class="error" role="alert">{job.result.error.code}: {job.result.error.message}</p>
          )}
          {job && job.log.length > 0 && (job.state === "failed" || running) && (
            <pre class="log" data-testid="run-log">{job.log.join("\n")}</pre>
          )}
        </section>
        <section class="card prisma" aria-labelledby="prisma-title">
          <h3 id="prisma-title">PRISMA flow</h3>
          {prismaError ? <p class="muted">{prismaError}</p> : prisma ? <PrismaDiagram prisma={prisma} /> : <p>Loading…</p>}
        </section>
      </div>
    </section>
  );
}
