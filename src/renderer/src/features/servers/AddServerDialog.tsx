import { useState } from 'react'
import type { HostKeyProbe } from '../../../../shared/models'
import { Modal } from '../../components/Modal'
import { ProblemLine } from '../../components/ProblemLine'
import { useStores } from '../../stores/app-stores'
import { dialogProblem } from './dialog-words'

type Step = { kind: 'form' } | { kind: 'confirm'; probe: HostKeyProbe } | { kind: 'adding'; probe: HostKeyProbe }

/**
 * Adding a server is a trust decision: Berth first reads the host key the server presents
 * (nothing is stored), shows its fingerprint, and stores the server only once the user confirmed
 * that this fingerprint is the server's.
 */
export function AddServerDialog() {
  const stores = useStores()
  const close = () => stores.ui.getState().openDialog(null)
  const [name, setName] = useState('')
  const [url, setUrl] = useState('ssh://')
  const [identity, setIdentity] = useState('')
  const [step, setStep] = useState<Step>({ kind: 'form' })
  const [fieldError, setFieldError] = useState<string | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)

  const draft = { name: name.trim(), url: url.trim(), identity: identity.trim() || undefined }

  const probe = async () => {
    setFieldError(null)
    setError(null)
    // the contract's schemas load with the first form checked, not with the page (see main.tsx)
    const { ServerAddress, ServerName } = await import('../../../../shared/contract')
    const n = ServerName.safeParse(draft.name)
    if (!n.success) return setFieldError(n.error.issues[0]!.message)
    const u = ServerAddress.safeParse(draft.url)
    if (!u.success) return setFieldError(u.error.issues[0]!.message)
    if (stores.servers.getState().list.some((s) => s.name === draft.name)) return setFieldError(`a server named ${draft.name} already exists`)
    setBusy(true)
    try {
      setStep({ kind: 'confirm', probe: await stores.servers.getState().probe(draft) })
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }

  const add = async (p: HostKeyProbe) => {
    setError(null)
    setStep({ kind: 'adding', probe: p })
    try {
      const server = await stores.servers.getState().add(draft, p.fingerprint)
      stores.ui.getState().info(`${server.name} is connected.`)
      close()
    } catch (e) {
      setError(e)
      setStep({ kind: 'confirm', probe: p })
    }
  }

  return (
    <Modal title="Add a server" onClose={close}>
      {step.kind === 'form' ? (
        <form
          style={{ display: 'flex', flexDirection: 'column', gap: 12 }}
          onSubmit={(e) => {
            e.preventDefault()
            void probe()
          }}
        >
          <p className="muted" style={{ margin: 0 }}>
            A server runs Docker and is reached over ssh. Berth keeps one connection to it and runs sessions there as if they were local.
          </p>
          <label className="field">
            Name
            <input value={name} onChange={(e) => setName(e.target.value)} placeholder="office" aria-label="server name" required />
          </label>
          <label className="field">
            Address
            <input value={url} onChange={(e) => setUrl(e.target.value)} placeholder="ssh://user@host:22, or a Host of ~/.ssh/config" aria-label="ssh address" required />
          </label>
          <label className="field">
            Identity file <span className="hint">optional; the ssh config's, else the ssh agent</span>
            <input value={identity} onChange={(e) => setIdentity(e.target.value)} placeholder="~/.ssh/id_ed25519" aria-label="identity file" />
          </label>
          {fieldError && <div className="field-error" role="alert">{fieldError}</div>}
          {error ? <ProblemLine problem={dialogProblem(error)} onRetry={() => void probe()} /> : null}
          <div className="buttons">
            <button type="button" onClick={close}>
              Cancel
            </button>
            <button type="submit" className="primary" disabled={busy}>
              {busy ? 'Contacting the server…' : 'Continue'}
            </button>
          </div>
        </form>
      ) : (
        <form
          style={{ display: 'flex', flexDirection: 'column', gap: 12 }}
          onSubmit={(e) => {
            e.preventDefault()
            void add(step.probe)
          }}
        >
          <p style={{ margin: 0 }}>
            {step.probe.known ? 'Your ssh (or Berth) already trusts this key for ' : 'First contact with '}
            <strong>{step.probe.url.replace(/^ssh:\/\//, '')}</strong>
            {draft.url.startsWith('ssh://') ? '' : ` (${draft.url} in ~/.ssh/config)`}. It presents this {step.probe.keyType} host key:
          </p>
          <div className="fingerprint" data-testid="fingerprint">
            {step.probe.fingerprint}
          </div>
          <p className="muted" style={{ margin: 0 }}>
            Compare it with the server's own (on the server: <code>ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub</code>). Confirm only if they are the same: nothing is stored until you do.
          </p>
          {error ? <ProblemLine problem={dialogProblem(error)} /> : null}
          <div className="buttons">
            <button type="button" onClick={() => setStep({ kind: 'form' })} disabled={step.kind === 'adding'}>
              Back
            </button>
            <button type="submit" className="primary" disabled={step.kind === 'adding'}>
              {step.kind === 'adding' ? 'Connecting…' : 'The fingerprint matches: add'}
            </button>
          </div>
        </form>
      )}
    </Modal>
  )
}
