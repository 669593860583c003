/** Screening: the pending candidates one at a time, likely includes first once the model can rank them
 *  (title, abstract, venue, why it is here and why it ranks there), decided with the keyboard:
 *  A accept, R reject (a reason is asked), S skip, U undo. After every decision the queue is asked again,
 *  so the next work is the top of the re-ranked queue; the stopping rule's verdict stays in view.
 *
 *  Undo goes back to the last work seen and withdraws the decision made on it (DELETE
 *  /api/decisions/{id}, as `b2g withdraw`): the work is pending again, as if never decided, and shown. */
import { useCallback, useEffect, useState } from "preact/hooks";
import { ApiFailure, QueueAnswer, QueueWork, del, doiUrl, get, post } from "../api";
import { ReasonDialog } from "../components/ReasonDialog";
import { plain } from "../graph";

type Action = "accept" | "reject" | "skip";
interface Step { work: QueueWork; action: Action; reason: string }

/** Works asked per call: the screen shows one, the "next" list a few; skipped works come on top. */
const QUEUE_PAGE = 50;
const NEXT_SHOWN = 8;

export function Screening({ onDecided }: { onDecided: () => void }) {
  const [answer, setAnswer] = useState<QueueAnswer | null>(null);
  /** Works skipped in this session: passed over until the session ends or an undo brings one back. */
  const [skipped, setSkipped] = useState<string[]>([]);
  /** A work shown first whatever the ranking says (the one an undo brought back). */
  const [pinned, setPinned] = useState<QueueWork | null>(null);
  const [history, setHistory] = useState<Step[]>([]);
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const load = useCallback(async (skips: number) => {
    const data = await get<QueueAnswer>("api/queue", { limit: QUEUE_PAGE + skips });
    setAnswer(data);
    return data;
  }, []);

  useEffect(() => {
    load(0).catch((exc) => setError(exc instanceof ApiFailure ? exc.message : String(exc)))
      .finally(() => setBusy(false));
  }, [load]);

  const waiting = (answer?.works ?? []).filter((w) => !skipped.includes(w.work_id) && w.work_id !== pinned?.work_id);
  const current = pinned ?? waiting[0] ?? null;
  const next = (pinned ? waiting : waiting.slice(1)).slice(0, NEXT_SHOWN);

  const fail = (exc: unknown) => setError(exc instanceof ApiFailure ? exc.message : String(exc));

  const decide = useCallback(async (action: Action, reason = "") => {
    if (!current || busy) return;
    setError(null);
    if (action === "skip") {
      setSkipped((s) => [...s, current.work_id]);
      setPinned(null);
    } else {
      setBusy(true);
      try {
        await post("api/decisions", { decision: action, ids: [current.work_id], reason, by: "gui" });
        setPinned(null);
        await load(skipped.length);
        onDecided();
      } catch (exc) {
        fail(exc);
        return;
      } finally {
        setBusy(false);
      }
    }
    setHistory((h) => [...h, { work: current, action, reason }]);
    setNotice(action === "skip" ? `skipped ${current.work_id}` : `${action}ed ${current.work_id}${reason ? ` (${reason})` : ""}`);
  }, [current, busy, skipped, load, onDecided]);

  /** Back to the last work seen, withdrawing the decision made on it: the work is pending again. */
  const undo = useCallback(async () => {
    const last = history[history.length - 1];
    if (!last || busy) return;
    setError(null);
    const id = last.work.work_id;
    if (last.action !== "skip") {
      setBusy(true);
      try {
        await del(`api/decisions/${encodeURIComponent(id)}`);
        await load(skipped.length);
        onDecided();
      } catch (exc) {
        fail(exc);
        return;
      } finally {
        setBusy(false);
      }
    } else {
      setSkipped((s) => s.filter((w) => w !== id));
    }
    setPinned(last.work);
    setHistory((h) => h.slice(0, -1));
    setNotice(last.action === "skip" ? `back to ${id}` : `${id}: ${last.action} withdrawn, pending again`);
  }, [history, busy, skipped, load, onDecided]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (asking || e.ctrlKey || e.metaKey || e.altKey) return;
      const target = e.target as HTMLElement | null;
      if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT")) return;
      const key = e.key.toLowerCase();
      if (key === "a") { e.preventDefault(); void decide("accept"); }
      else if (key === "r") { e.preventDefault(); if (current && !busy) setAsking(true); }
      else if (key === "s") { e.preventDefault(); void decide("skip"); }
      else if (key === "u") { e.preventDefault(); void undo(); }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [asking, current, busy, decide, undo]);

  // the verdict opens with what to do ("keep screening: …", "safe to stop: …", "nothing left to screen: …"):
  // that phrase is the heading, the rest says why
  const verdictHead = (v: string) => { const head = v.split(": ")[0]; return head.charAt(0).toUpperCase() + head.slice(1); };
  const verdictRest = (v: string) => v.split(": ").slice(1).join(": ");
  const authors = (w: QueueWork) => (Array.isArray(w.authors) ? w.authors.join(", ") : w.authors ?? "");
  const why = (w: QueueWork) => (typeof w.why_here === "string" ? w.why_here : JSON.stringify(w.why_here));
  const order = answer?.order;
  const stop = answer?.stopping;

  return (
    <section class="screening" aria-labelledby="screening-title" data-testid="screening" data-busy={busy ? "true" : "false"}>
      <h2 id="screening-title">Screening</h2>
      <p class="muted">
        <span data-testid="pending-count">{answer?.pending ?? "…"}</span> pending
        {" · "}keys: <kbd>A</kbd> accept, <kbd>R</kbd> reject, <kbd>S</kbd> skip, <kbd>U</kbd> undo
      </p>
      {order && <p class="muted" data-testid="queue-order-by" data-by={order.by}>
        {order.by === "model" ? `Ranked by the screening model (trained on ${order.includes} includes and ${order.excludes} excludes): likely includes first.`
                              : "In work ID order: the model ranks the queue once there is an include and an exclude."}</p>}
      {stop && (
        <p class={`stopping ${stop.stop ? "go" : "wait"}`} data-testid="stopping" data-stop={stop.stop ? "true" : "false"}
           title={`${stop.method}; p = ${stop.p_value}`}>
          <strong data-testid="stopping-head">{verdictHead(stop.verdict)}</strong>: {verdictRest(stop.verdict)}
          <span class="muted"> · {stop.screened} of {stop.to_screen} screened, {stop.includes_found} included ·{" "}
            {stop.heuristic.excludes_in_a_row} excluded in a row (for information only)</span>
        </p>
      )}
      {error && <p class="error" role="alert" data-testid="screening-error">{error}</p>}
      <p class="notice" role="status" aria-live="polite" data-testid="screening-notice">{notice ?? ""}</p>
      {answer && !current && !busy && <p data-testid="queue-empty">Nothing left to screen here. Run the pipeline to update the corpus.</p>}
      <div class="screen-row">
        {current && (
          <article class="candidate" data-testid="candidate" data-id={current.work_id} aria-labelledby="candidate-title">
            <h3 id="candidate-title" data-testid="candidate-title">{current.title ? plain(current.title) : current.work_id}</h3>
            <p class="muted">{authors(current)}</p>
            <p>{[current.year, current.venue].filter(Boolean).join(" · ")}
              {current.doi && <> · <a href={doiUrl(current.doi)} target="_blank" rel="noreferrer noopener">doi:{current.doi}</a></>}
              {" · "}<a href={`https://openalex.org/${current.work_id}`} target="_blank" rel="noreferrer noopener">{current.work_id}</a></p>
            <p class="why" data-testid="why-here"><strong>Why it is here:</strong> {why(current)}</p>
            {current.why_ranked && (
              <div class="why ranked" data-testid="why-ranked">
                <strong>Why it ranks {current === pinned ? "here" : `#${current.rank}`}:</strong>{" "}
                {current.why_ranked.terms.length > 0 && <>terms <span data-testid="why-terms">{current.why_ranked.terms.map((t) => (
                  <span class="term" key={t.term}>{t.term}</span>))}</span></>}
                {current.why_ranked.linked_includes.length > 0 && (
                  <ul class="links" data-testid="why-links">
                    {current.why_ranked.linked_includes.map((l) => (
                      <li key={l.work_id} data-id={l.work_id}>linked to include {l.name ? `${l.name} (${l.work_id})` : l.work_id}: {l.how.join(", ")}</li>
                    ))}
                    {current.why_ranked.linked_includes_total > current.why_ranked.linked_includes.length &&
                      <li class="muted">and {current.why_ranked.linked_includes_total - current.why_ranked.linked_includes.length} more included works</li>}
                  </ul>
                )}
                {current.why_ranked.terms.length === 0 && current.why_ranked.linked_includes.length === 0 &&
                  <span class="muted">no term or link speaks for it; it ranks by what speaks against the others</span>}
              </div>
            )}
            <div class="abstract">{current.abstract ?? <span class="muted">No abstract.</span>}</div>
            <div class="row actions">
              <button type="button" onClick={() => decide("accept")} disabled={busy} data-testid="accept"><kbd>A</kbd> Accept</button>
              <button type="button" onClick={() => setAsking(true)} disabled={busy} data-testid="reject"><kbd>R</kbd> Reject…</button>
              <button type="button" onClick={() => decide("skip")} disabled={busy} data-testid="skip"><kbd>S</kbd> Skip</button>
              <button type="button" class="ghost" onClick={() => void undo()} disabled={busy || !history.length} data-testid="undo"><kbd>U</kbd> Undo</button>
            </div>
          </article>
        )}
        {next.length > 0 && (
          <aside class="next" aria-label="Next in the queue">
            <h4>Next</h4>
            <ol data-testid="queue-next">
              {next.map((w) => <li key={w.work_id} data-id={w.work_id} data-rank={w.rank}>{w.title ? plain(w.title) : w.work_id}</li>)}
            </ol>
          </aside>
        )}
      </div>
      {asking && current && (
        <ReasonDialog title={current.title ?? current.work_id} onCancel={() => setAsking(false)}
                      onConfirm={(reason) => { setAsking(false); void decide("reject", reason); }} />
      )}
    </section>
  );
}
