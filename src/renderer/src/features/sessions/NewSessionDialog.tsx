import { useEffect, useMemo, useState } from 'react'
import type { Progress } from '../../../../shared/models'
import { Modal } from '../../components/Modal'
import { ProblemLine } from '../../components/ProblemLine'
import { ProgressBar } from '../../components/ProgressBar'
import { useServers, useSessions, useStores, useUi } from '../../stores/app-stores'

const LAST_IMAGE = 'berth.lastImage'
const DEFAULT_IMAGE = 'berth-base:bookworm'

/** K=V lines into an env map, or the first bad line. */
export function parseEnvLines(text: string): { env: Record<string, string> } | { error: string } {
  const env: Record<string, string> = {}
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (!line || line.startsWith('#')) continue
    const eq = line.indexOf('=')
    const key = eq > 0 ? line.slice(0, eq).trim() : ''
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) return { error: `“${line}” is not NAME=value` }
    env[key] = line.slice(eq + 1)
  }
  return { env }
}

const newOp = () => `ui-${Math.random().toString(36).slice(2, 10)}`

export function NewSessionDialog() {
  const stores = useStores()
  const close = () => stores.ui.getState().openDialog(null)
  const servers = useServers((s) => s.list)
  const byId = useSessions((s) => s.byId)
  const navigate = useUi((s) => s.navigate)
  const [server, setServer] = useState('local')
  const [image, setImage] = useState(() => localStorage.getItem(LAST_IMAGE) ?? DEFAULT_IMAGE)
  const [name, setName] = useState('')
  const [envText, setEnvText] = useState('')
  const [workspace, setWorkspace] = useState('')
  // where the session starts from: an image, or a project folder's devcontainer.json
  const [from, setFrom] = useState<'image' | 'devcontainer'>('image')
  const [folder, setFolder] = useState('')
  const [fieldError, setFieldError] = useState<string | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const [progress, setProgress] = useState<Progress | null>(null)
  const [op] = useState(newOp)
  const [secrets, setSecrets] = useState<string[]>([])
  const [chosen, setChosen] = useState<string[]>([])
  const [noKeychain, setNoKeychain] = useState(false)
  useEffect(() => {
    stores.client.call('secret.list', {}).then((list) => setSecrets(list.map((s) => s.name)), () => setSecrets([]))
    stores.client.call('secret.info', {}).then((p) => setNoKeychain(p.keychain?.backend === 'basic_text'), () => setNoKeychain(false))
  }, [stores])

  // images the user already runs, to pick from
  const images = useMemo(() => [...new Set([DEFAULT_IMAGE, ...Object.values(byId).map((s) => s.image)])].sort(), [byId])

  useEffect(() => stores.client.on('progress', (p) => p.op === op && setProgress(p)), [stores, op])

  const submit = async () => {
    setFieldError(null)
    setError(null)
    const env = parseEnvLines(envText)
    if ('error' in env) return setFieldError(env.error)
    const ws = workspace.trim() || undefined
    const start = from === 'image' ? { image: image.trim() } : { devcontainer: folder.trim() || ws }
    const args = { server, ...start, name: name.trim() || undefined, env: env.env, workspace: ws, secrets: chosen.length ? chosen : undefined, op }
    if (from === 'devcontainer' && !args.devcontainer) return setFieldError('name the project folder that holds .devcontainer/devcontainer.json (or a workspace)')
    // the contract's schemas load with the first form checked, not with the page (see main.tsx)
    const { calls } = await import('../../../../shared/contract')
    const checked = calls['session.create'].args.safeParse(args)
    if (!checked.success) return setFieldError(checked.error.issues[0]?.message ?? 'check the fields')
    setBusy(true)
    try {
      const s = await stores.sessions.getState().create(args)
      if (args.image) localStorage.setItem(LAST_IMAGE, args.image)
      close()
      navigate({ screen: 'session', id: s.id })
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }

  return (
    <Modal title="New session" onClose={close}>
      <form
        onSubmit={(e) => {
          e.preventDefault()
          void submit()
        }}
        style={{ display: 'flex', flexDirection: 'column', gap: 12 }}
      >
        <label className="field">
          Server
          <select value={server} onChange={(e) => setServer(e.target.value)} disabled={busy} aria-label="server">
            {servers.map((s) => (
              <option key={s.name} value={s.name}>
                {s.name}
                {s.kind === 'ssh' ? ` (${s.url.replace(/^ssh:\/\//, '')})` : ' (this machine)'}
              </option>
            ))}
          </select>
        </label>
        <fieldset className="field" style={{ border: 'none', padding: 0, margin: 0 }}>
          Start from
          <span style={{ display: 'flex', gap: 12, flexWrap: 'wrap' }}>
            <label className="choice">
              <input type="radio" name="from" disabled={busy} checked={from === 'image'} onChange={() => setFrom('image')} />
              An image
            </label>
            <label className="choice">
              <input type="radio" name="from" disabled={busy} checked={from === 'devcontainer'} onChange={() => setFrom('devcontainer')} />
              From this folder's devcontainer.json
            </label>
          </span>
        </fieldset>
        {from === 'image' ? (
          <label className="field">
            Image
            <input value={image} onChange={(e) => setImage(e.target.value)} list="known-images" disabled={busy} required aria-label="image" />
            <datalist id="known-images">
              {images.map((i) => (
                <option key={i} value={i} />
              ))}
            </datalist>
            <span className="hint">Missing on a connected server? Berth carries it there from a server that has it.</span>
          </label>
        ) : (
          <label className="field">
            Project folder{' '}
            <span className="hint">
              holding .devcontainer/devcontainer.json, on the machine running Berth (empty: the workspace below). Its image is used or its Dockerfile built on the
              server; keys Berth does not support are listed in the session's events (Dev Container Features are not supported yet).
            </span>
            <input value={folder} onChange={(e) => setFolder(e.target.value)} disabled={busy} aria-label="project folder" placeholder="/home/me/src/project" />
          </label>
        )}
        <label className="field">
          Name <span className="hint">optional; a readable route name is chosen otherwise</span>
          <input value={name} onChange={(e) => setName(e.target.value)} disabled={busy} aria-label="name" placeholder="e.g. api-refactor" />
        </label>
        <label className="field">
          Environment <span className="hint">NAME=value, one per line</span>
          <textarea rows={3} value={envText} onChange={(e) => setEnvText(e.target.value)} disabled={busy} aria-label="environment" className="mono" />
        </label>
        <label className="field">
          Workspace <span className="hint">optional: a git repository on the machine running Berth, cloned into /workspace</span>
          <input value={workspace} onChange={(e) => setWorkspace(e.target.value)} disabled={busy} aria-label="workspace" placeholder="/home/me/src/project" />
        </label>
        {secrets.length > 0 && (
          <fieldset className="field" style={{ border: 'none', padding: 0, margin: 0 }}>
            Secrets{' '}
            <span className="hint">
              files under /run/berth/secrets/ for the session's user, never in its files (a memory pause keeps what its processes read)
              {noKeychain ? "; no OS keychain here (Electron's basic_text): their key file alone guards them" : ''}
            </span>
            <span style={{ display: 'flex', gap: 12, flexWrap: 'wrap' }}>
              {secrets.map((n) => (
                <label key={n} className="choice">
                  <input type="checkbox" disabled={busy} checked={chosen.includes(n)} onChange={(e) => setChosen(e.target.checked ? [...chosen, n] : chosen.filter((x) => x !== n))} />
                  <span className="mono">{n}</span>
                </label>
              ))}
            </span>
          </fieldset>
        )}
        {fieldError && <div className="field-error" role="alert">{fieldError}</div>}
        {error ? <ProblemLine error={error} onRetry={() => void submit()} /> : null}
        {busy && progress && <ProgressBar progress={progress} />}
        <div className="buttons">
          <button type="button" onClick={close}>
            {busy ? 'Hide' : 'Cancel'}
          </button>
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Creating…' : 'Create'}
          </button>
        </div>
      </form>
    </Modal>
  )
}
