/** The small dialog that asks why a work is rejected; Enter confirms, Escape cancels. */
import { useEffect, useRef, useState } from "preact/hooks";

const COMMON = ["off topic", "wrong population", "wrong study type", "not peer reviewed", "duplicate"];

export function ReasonDialog({ title, onConfirm, onCancel }: { title: string; onConfirm: (reason: string) => void; onCancel: () => void }) {
  const [reason, setReason] = useState("");
  const dialog = useRef<HTMLDialogElement>(null);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    dialog.current?.showModal();
    input.current?.focus();
  }, []);

  const submit = (e: Event) => {
    e.preventDefault();
    if (reason.trim()) onConfirm(reason.trim());
  };

  return (
    <dialog ref={dialog} class="reason" aria-labelledby="reason-title" data-testid="reason-dialog"
            onCancel={(e) => { e.preventDefault(); onCancel(); }}>
      <form onSubmit={submit}>
        <h3 id="reason-title">Reject: why?</h3>
        <p class="muted">{title}</p>
        <label>reason <input ref={input} value={reason} required maxLength={1000} list="common-reasons" data-testid="reason-input"
                             onInput={(e) => setReason((e.target as HTMLInputElement).value)} /></label>
        <datalist id="common-reasons">{COMMON.map((r) => <option key={r} value={r} />)}</datalist>
        <div class="row">
          <button type="submit" disabled={!reason.trim()} data-testid="reason-confirm">Reject</button>
          <button type="button" class="ghost" onClick={onCancel} data-testid="reason-cancel">Cancel</button>
        </div>
      </form>
    </dialog>
  );
}
