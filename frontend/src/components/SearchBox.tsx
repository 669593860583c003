/** Search over works (title, author, DOI) through /api/search; picking a hit hands its ID on. */
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiFailure, SearchHit, get } from "../api";
import { plain } from "../graph";

export function SearchBox({ onPick }: { onPick: (id: string) => void }) {
  const [query, setQuery] = useState("");
  const [hits, setHits] = useState<SearchHit[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const asked = useRef(0);

  useEffect(() => {
    const q = query.trim();
    if (q.length < 2) { setHits([]); return; }
    const ticket = ++asked.current;
    const timer = window.setTimeout(() => {
      get<{ works: SearchHit[] }>("api/search", { q, limit: 10 }).then((d) => {
        if (ticket !== asked.current) return; // a newer query is on its way
        setHits(d.works); setActive(0); setOpen(true); setError(null);
      }).catch((exc) => { if (ticket === asked.current) setError(exc instanceof ApiFailure ? exc.message : String(exc)); });
    }, 150);
    return () => window.clearTimeout(timer);
  }, [query]);

  const pick = (hit: SearchHit) => { setOpen(false); onPick(hit.work_id); };

  const onKey = (e: KeyboardEvent) => {
    if (e.key === "ArrowDown") { setActive((i) => Math.min(hits.length - 1, i + 1)); e.preventDefault(); }
    else if (e.key === "ArrowUp") { setActive((i) => Math.max(0, i - 1)); e.preventDefault(); }
    else if (e.key === "Enter" && hits[active]) { pick(hits[active]); e.preventDefault(); }
    else if (e.key === "Escape") setOpen(false);
  };

  return (
    <div class="search" role="search">
      <input type="search" placeholder="Search works: title, author, DOI" value={query} aria-label="Search works"
             role="combobox" aria-expanded={open && hits.length > 0} aria-controls="search-hits" data-testid="search-input"
             onInput={(e) => setQuery((e.target as HTMLInputElement).value)} onKeyDown={onKey} onFocus={() => setOpen(true)} />
      {error && <span class="error" role="alert">{error}</span>}
      {open && hits.length > 0 && (
        <ul id="search-hits" role="listbox" class="hits" data-testid="search-results">
          {hits.map((h, i) => (
            <li key={h.work_id} role="option" aria-selected={i === active} data-testid="search-hit" data-id={h.work_id}
                class={i === active ? "active" : ""} onMouseDown={(e) => { e.preventDefault(); pick(h); }}>
              <span class="t">{h.title ? plain(h.title) : h.work_id}</span>
              <span class="m">{h.year ?? ""} · {h.work_id} · <span class={`state ${h.state}`}>{h.state}</span></span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
