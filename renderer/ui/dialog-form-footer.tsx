/**
 * The footer of a dialog that holds one form: progress while saving, Cancel, and the submit button
 * (outside the form in the DOM, so it names the form by id).
 */
export function DialogFormFooter({ formId, saving, submitLabel, onCancel }: { formId: string; saving: boolean; submitLabel: string; onCancel: () => void }) {
  return (
    <>
      {saving ? <span className="form-card__progress">Saving…</span> : null}
      <button type="button" className="button" onClick={onCancel}>
        Cancel
      </button>
      <button type="submit" form={formId} className="button button--primary" aria-disabled={saving || undefined}>
        {submitLabel}
      </button>
    </>
  );
}
