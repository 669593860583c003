/** Screening: the pending candidates one at a time (title, abstract, venue, why it is here), decided
 *  with the keyboard: A accept, R reject (a reason is asked), S skip, U undo.
 *
 *  Undo goes back to the last work seen and withdraws the decision made on it (DELETE
 *  /api/decisions/{id}, as `b2g withdraw`): the work is pending again, as if never decided. */
import { useCallback, useEffect, useState } from "preact/hooks";
import { ApiFailure, QueueWork, del, get, post } from "../api";
import { ReasonDialog } from "../components/ReasonDialog";
import { plain } from "../graph";

type Action = "accept" | "reject" | "skip";
interface Step { work: QueueWork; action: Action; reason: string }

const QUEUE_PAGE = 200;

export function Screening({ onDecided }: { onDecided: () => void }) {
  const [queue, setQueue] = useState<QueueWork[] | null>(null);
  const [pending, setPending] = useState<number | null>(null);
  /** The position in the queue: works before it were decided or skipped in this session. */
  const [index, setIndex] = useState(0);
  const [history, setHistory] = useState<Step[]>([]);
  /** What this session recorded per work (an undo withdraws it). */
  const [recorded, setRecorded] = useState<Record<string, Step>>({});
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    get<{ pending: number; works: QueueWork[] }>("api/queue", { limit: QUEUE_PAGE }).then((d) => {
      setQueue(d.works); setPending(d.pending); setIndex(0);
    }).catch((exc) => setError(exc instanceof ApiFailure ? exc.message : String(exc)));
  }, []);

  const current = queue?.[index] ?? null;
  const before = current ? recorded[current.work_id] : undefined;

  const decide = useCallback(async (action: Action, reason = "") => {
    if (!current || busy) return;
    setError(null);
    if (action !== "skip") {
      setBusy(true);
      try {
        await post("api/decisions", { decision: action, ids: [current.work_id], reason, by: "gui" });
      } catch (exc) {
        setError(exc instanceof ApiFailure ? exc.message : String(exc));
        setBusy(false);
        return;
      }
      setBusy(false);
      if (!recorded[current.work_id]) setPending((p) => (p === null ? p : p - 1));
      setRecorded((r) => ({ ...r, [current.work_id]: { work: current, action, reason } }));
      onDecided();
    }
    setHistory((h) => [...h, { work: current, action, reason }]);
    setNotice(action === "skip" ? `skipped ${current.work_id}` : `${action}ed ${current.work_id}${reason ? ` (${reason})` : ""}`);
    setIndex((i) => i + 1);
  }, [current, busy, recorded, onDecided]);

  /** Back to the last work seen, withdrawing the decision made on it: the work is pending again. */
  const undo = useCallback(async () => {
    const last = history[history.length - 1];
    if (!last || busy) return;
    setError(null);
    const id = last.work.work_id;
    if (last.action !== "skip" && recorded[id]) {
      setBusy(true);
      try {
        await del(`api/decisions/${encodeURIComponent(id)}`);
      } catch (exc) {
        setError(exc instanceof ApiFailure ? exc.message : String(exc));
        setBusy(false);
        return;
      }
      setBusy(false);
      setRecorded((r) => { const rest = { ...r }; delete rest[id]; return rest; });
      setPending((p) => (p === null ? p : p + 1));
      onDecided();
    }
    setHistory((h) => h.slice(0, -1));
    setIndex((i) => Math.max(0, i - 1));
    setNotice(last.action === "skip" ? `back to ${id}` : `${id}: ${last.action} withdrawn, pending again`);
  }, [history, busy, recorded, onDecided]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (asking || e.ctrlKey || e.metaKey || e.altKey) return;
      const target = e.target as HTMLElement | null;
      if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT")) return;
      const key = e.key.toLowerCase();
      if (key === "a") { e.preventDefault(); void decide("accept"); }
      else if (key === "r") { e.preventDefault(); if (current) setAsking(true); }
      else if (key === "s") { e.preventDefault(); void decide("skip"); }
      else if (key === "u") { e.preventDefault(); void undo(); }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [asking, current, decide, undo]);

  const authors = (w: QueueWork) => (Array.isArray(w.authors) ? w.authors.join(", ") : w.authors ?? "");
  const why = (w: QueueWork) => (typeof w.why_here === "string" ? w.why_here : JSON.stringify(w.why_here));

  return (
    <section class="screening" aria-labelledby="screening-title" data-testid="screening">
      <h2 id="screening-title">Screening</h2>
      <p class="muted">
        <span data-testid="pending-count">{pending ?? "…"}</span> pending
        {queue && queue.length < (pending ?? 0) ? ` (the first ${queue.length} loaded)` : ""}
        {" · "}keys: <kbd>A</kbd> accept, <kbd>R</kbd> reject, <kbd>S</kbd> skip, <kbd>U</kbd> undo
      </p>
      {error && <p class="error" role="alert" data-testid="screening-error">{error}</p>}
      <p class="notice" role="status" aria-live="polite" data-testid="screening-notice">{notice ?? ""}</p>
      {queue && !current && <p data-testid="queue-empty">Nothing left to screen here. Run the pipeline to update the corpus.</p>}
      {current && (
        <article class="candidate" data-testid="candidate" data-id={current.work_id} aria-labelledby="candidate-title">
          {before && <p class="notice" data-testid="recorded">Recorded: <strong>{before.action}ed</strong>{before.reason ? ` (${before.reason})` : ""}. A new decision replaces it.</p>}
          <h3 id="candidate-title" data-testid="candidate-title">{current.title ? plain(current.title) : current.work_id}</h3>
          <p class="muted">{authors(current)}</p>
          <p>{[current.year, current.venue].filter(Boolean).join(" · ")}
            {current.doi && <> · <a href={`https://doi.org/${current.doi}`} target="_blank" rel="noreferrer noopener">doi:{current.doi}</a></>}
            {" · "}<a href={`https://openalex.org/${current.work_id}`} target="_blank" rel="noreferrer noopener">{current.work_id}</a></p>
          <p class="why" data-testid="why-here"><strong>Why it is here:</strong> {why(current)}</p>
          <div class="abstract">{current.abstract ?? <span class="muted">No abstract.</span>}</div>
          <div class="row actions">
            <button type="button" onClick={() => decide("accept")} disabled={busy} data-testid="accept"><kbd>A</kbd> Accept</button>
            <button type="button" onClick={() => setAsking(true)} disabled={busy} data-testid="reject"><kbd>R</kbd> Reject…</button>
            <button type="button" onClick={() => decide("skip")} disabled={busy} data-testid="skip"><kbd>S</kbd> Skip</button>
            <button type="button" class="ghost" onClick={() => void undo()} disabled={busy || !history.length} data-testid="undo"><kbd>U</kbd> Undo</button>
          </div>
        </article>
      )}
      {asking && current && (
        <ReasonDialog title={current.title ?? current.work_id} onCancel={() => setAsking(false)}
                      onConfirm={(reason) => { setAsking(false); void decide("reject", reason); }} />
      )}
    </section>
  );
}
