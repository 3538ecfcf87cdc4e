import { useEffect } from 'react'
import type { Server } from '../../../../shared/models'
import { ProblemLine } from '../../components/ProblemLine'
import { describeError } from '../../api/errors'
import { useServers, useSessions, useStores, useUi } from '../../stores/app-stores'
import { askThenRun } from '../../stores/ui'

function Health({ name }: { name: string }) {
  const h = useServers((s) => s.health[name])
  if (!h || (h.testing && !h.test && !h.error)) return <span className="muted">testing…</span>
  if (h.error) return <span className="failure">{describeError(h.error).message}</span>
  if (!h.test) return <span className="muted">–</span>
  return (
    <span title={`Docker ${h.test.version} (API ${h.test.apiVersion}) on ${h.test.os}, kernel ${h.test.kernel}`}>
      {h.test.rttMs.toFixed(h.test.rttMs < 10 ? 2 : 0)} ms · Docker {h.test.version}
    </span>
  )
}

/** Whether the server pauses with memory, as its last test found, and why not. */
function MemoryPauseCell({ m }: { m: Server['memoryPause'] }) {
  if (!m) return <span className="muted">not tested yet</span>
  return (
    <div>
      <span className={`badge ${m.available ? 'state-running' : 'state-paused'}`}>{m.available ? `memory (${m.how})` : 'freezes instead'}</span>
      <div className="sub">
        {m.available && m.dumpMiBps ? `about ${Math.round(m.dumpMiBps)} MiB/s · ` : ''}
        {m.note}
      </div>
    </div>
  )
}

export function ServersScreen() {
  const stores = useStores()
  const list = useServers((s) => s.list)
  const loadError = useServers((s) => s.loadError)
  const byId = useSessions((s) => s.byId)
  const openDialog = useUi((s) => s.openDialog)

  useEffect(() => {
    void stores.servers.getState().testAll()
  }, [stores, list.length])

  const remove = async (s: Server) => {
    const live = Object.values(byId).filter((x) => x.server === s.name && x.state !== 'finished').length
    if (live > 0) return stores.ui.getState().fail(new Error(`${s.name} still has ${live} live session${live === 1 ? '' : 's'}: finish or move them first`))
    await askThenRun(
      stores.ui,
      {
        title: `Remove ${s.name}?`,
        body: "Berth forgets the server and its host key, and removes the helper container it started there; the server's other containers are not touched.",
        confirmLabel: 'Remove',
        danger: true,
      },
      async () => {
        const r = await stores.servers.getState().remove(s.name)
        return r.helper === 'left' ? `${s.name} removed; it did not answer, so Berth's helper container is still there.` : `${s.name} removed.`
      },
    )
  }

  return (
    <section className="screen servers" aria-labelledby="servers-title">
      <div className="screen-head">
        <h1 id="servers-title">Servers</h1>
        <div className="toolbar">
          <button onClick={() => void stores.servers.getState().testAll()}>Test all</button>
          <button className="primary" onClick={() => openDialog('add-server')}>
            Add a server
          </button>
        </div>
      </div>
      {loadError ? <ProblemLine error={loadError} onRetry={() => void stores.servers.getState().load()} /> : null}
      <table className="list" aria-label="servers">
        <thead>
          <tr>
            <th>Name</th>
            <th>Address</th>
            <th>State</th>
            <th>Round trip</th>
            <th>Memory pause</th>
            <th>Host key</th>
            <th>
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {list.map((s) => (
            <tr key={s.name} data-server={s.name}>
              <td className="name-cell">
                <strong>{s.name}</strong>
                <div className="sub">{s.kind === 'local' ? 'this machine' : 'over ssh'}</div>
              </td>
              <td className="mono">{s.url}</td>
              <td>
                <span className={`badge ${s.state === 'connected' ? 'state-running' : s.state === 'disconnected' ? 'state-failed' : 'state-finished'}`}>{s.state}</span>
              </td>
              <td>
                <Health name={s.name} />
              </td>
              <td>
                <MemoryPauseCell m={s.memoryPause} />
              </td>
              <td className="fp">{s.hostKeyFingerprint ?? '–'}</td>
              <td className="actions">
                <button className="small" onClick={() => void stores.servers.getState().test(s.name)}>
                  Test
                </button>
                {s.kind === 'ssh' && (
                  <button className="small danger" onClick={() => void remove(s)}>
                    Remove
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.length <= 1 && (
        <p className="muted">
          Only this machine so far. Add a server reached over ssh to run sessions there and move paused sessions between machines.
        </p>
      )}
    </section>
  )
}
