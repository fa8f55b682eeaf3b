import { useId, useRef, useState, type FormEvent } from 'react';
import type { Host } from '../../../shared/hosts';
import { parseSshHostName } from '../../../shared/ssh-host-name';
import { DialogFormFooter } from '../../ui/dialog-form-footer';
import { ErrorAlert } from '../../ui/error-alert';
import { FormField } from '../../ui/form-field';
import { ModalDialog } from '../../ui/modal-dialog';
import { useSingleSubmit } from '../../ui/use-single-submit';
import { useAddHost } from './use-hosts';

/** Add host: the name ssh knows. What the name may be is said as it is refused (shared/ssh-host-name.ts). */
export function AddHostDialog({ onClose, onAdded }: { onClose: () => void; onAdded: (host: Host) => void }) {
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const add = useAddHost();
  const { pending, submit: submitOnce } = useSingleSubmit();
  const formId = useId();
  const nameRef = useRef<HTMLInputElement>(null);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    submitOnce(() => {
      const parsed = parseSshHostName(name.trim());
      if (!parsed.ok) {
        setProblem(parsed.problem);
        nameRef.current?.focus();
        return;
      }
      return add.mutateAsync(parsed.name).then(onAdded);
    });
  };

  return (
    <ModalDialog
      title="Add host"
      description={
        <p className="muted">
          The console runs your own <code>ssh</code>: your ssh config (aliases, ProxyJump, User, IdentityFile), your agent and your keys. It never
          asks for a password and never accepts a host key you have not seen.
        </p>
      }
      initialFocusRef={nameRef}
      onClose={onClose}
      footer={<DialogFormFooter formId={formId} saving={pending} submitLabel="Add host" onCancel={onClose} />}
    >
      <form id={formId} className="dialog-form" onSubmit={submit} noValidate>
        <FormField label="Host" problem={problem} hint="The name you give ssh: an alias from ~/.ssh/config, a host name, or user@host.">
          {(control) => (
            <input
              ref={nameRef}
              {...control}
              className="input input--mono"
              type="text"
              value={name}
              onChange={(event) => {
                setName(event.target.value);
                setProblem(undefined);
              }}
              spellCheck={false}
              autoCapitalize="off"
              autoComplete="off"
            />
          )}
        </FormField>
        {add.isError ? <ErrorAlert error={add.error} prefix="Could not add the host." /> : null}
      </form>
    </ModalDialog>
  );
}
