import { useEffect, useState } from 'react'
import type { Settings } from '../../../../shared/settings'
import { ProblemLine } from '../../components/ProblemLine'
import type { CallResult } from '../../../../shared/contract'
import { CopyLine } from '../../components/CopyLine'
import { useServers, useSettings, useStores } from '../../stores/app-stores'
import { MachineChecks } from './MachineChecks'
import { WithCode } from './WithCode'

/** A number field that saves when it is left, checked by the same schema as the core's. */
function NumberSetting({ label, hint, value, scale = 1, onSave, min, max, step = 1 }: { label: string; hint: string; value: number; scale?: number; min: number; max: number; step?: number; onSave(v: number): Promise<void> }) {
  const [text, setText] = useState(String(value / scale))
  const [error, setError] = useState<string | null>(null)
  useEffect(() => setText(String(value / scale)), [value, scale])
  const commit = async () => {
    const n = Number(text)
    if (!Number.isFinite(n) || text.trim() === '') return setError('enter a number')
    if (n < min || n > max) return setError(`between ${min} and ${max}`)
    setError(null)
    const next = step < 1 ? Math.round(n * scale * 100) / 100 : Math.round(n * scale)
    if (next !== value) await onSave(next).catch((e: Error) => setError(e.message))
  }
  return (
    <label className="field">
      {label}
      <span className="row">
        <input type="number" value={text} min={min} max={max} step={step} onChange={(e) => setText(e.target.value)} onBlur={() => void commit()} onKeyDown={(e) => e.key === 'Enter' && void commit()} aria-label={label} style={{ width: 120 }} />
      </span>
      <span className="hint">{hint}</span>
      {error && <span className="field-error">{error}</span>}
    </label>
  )
}

export function SettingsScreen() {
  const stores = useStores()
  const value = useSettings((s) => s.value)
  const loadError = useSettings((s) => s.loadError)
  const servers = useServers((s) => s.list)
  const [saveError, setSaveError] = useState<unknown>(null)
  // "Saved" for a few seconds after each change the core accepted
  const [savedAt, setSavedAt] = useState<number | null>(null)
  useEffect(() => {
    if (savedAt === null) return
    const t = setTimeout(() => setSavedAt(null), 4000)
    return () => clearTimeout(t)
  }, [savedAt])
  const [routes, setRoutes] = useState<CallResult<'routes.info'> | null>(null)
  const [power, setPower] = useState<CallResult<'power.doctor'> | null>(null)

  useEffect(() => {
    void stores.settings.getState().load()
    stores.client.call('routes.info', {}).then(setRoutes, () => setRoutes(null))
  }, [stores, value?.gatewayPort, value?.previewPort])

  useEffect(() => {
    stores.client.call('power.doctor', {}).then(setPower, () => setPower(null))
  }, [stores, value?.pauseDeadlineSeconds, value?.onSleep])

  const writeSshConfig = async () => {
    try {
      const r = await stores.client.call('routes.sshConfig', { write: true })
      stores.ui.getState().info(`${r.path} now names ${r.hosts.length} session(s); add the Include line once to ~/.ssh/config.`)
    } catch (e) {
      stores.ui.getState().fail(e)
    }
  }

  const save = async (patch: Partial<Settings>) => {
    setSaveError(null)
    // the settings' schemas load with the first value saved, not with the page (see main.tsx)
    const { SettingsPatch } = await import('../../../../shared/settings')
    const checked = SettingsPatch.safeParse(patch)
    if (!checked.success) throw new Error(checked.error.issues[0]?.message ?? 'not a valid value')
    try {
      await stores.settings.getState().save(checked.data)
      setSavedAt(Date.now())
    } catch (e) {
      setSaveError(e)
      throw e
    }
  }

  if (loadError) return <section className="screen"><ProblemLine error={loadError} onRetry={() => void stores.settings.getState().load()} /></section>
  if (!value) return <section className="screen"><p className="muted">Loading settings…</p></section>

  return (
    <section className="screen" aria-labelledby="settings-title">
      <div className="screen-head">
        <h1 id="settings-title">Settings</h1>
        <span className="saved" role="status" data-testid="saved">
          {savedAt !== null ? 'Saved' : ''}
        </span>
      </div>
      {saveError ? <ProblemLine error={saveError} /> : null}
      <div className="settings">
        <fieldset>
          <legend>When the laptop sleeps</legend>
          {(
            [
              ['all', 'Pause every running session', 'Nothing runs (or costs) while the lid is closed.'],
              ['marked', 'Pause only sessions marked auto-pause', 'The others keep running on their servers.'],
              ['nothing', 'Do nothing', 'Sessions keep running through sleep.'],
            ] as const
          ).map(([v, title, sub]) => (
            <label key={v} className="choice">
              <input type="radio" name="onSleep" checked={value.onSleep === v} onChange={() => void save({ onSleep: v }).catch(() => undefined)} />
              <span>
                {title}
                <small>{sub}</small>
              </span>
            </label>
          ))}
          <label className="choice">
            <input type="checkbox" checked={value.resumeOnWake} onChange={(e) => void save({ resumeOnWake: e.target.checked }).catch(() => undefined)} />
            <span>
              Resume them on wake
              <small>Sessions you paused yourself stay paused.</small>
            </span>
          </label>
          {power && (
            <div className="field" data-testid="sleep-window">
              <span>
                Sleep window: {power.window.seconds === null ? 'none' : `${power.window.seconds} s`} · the running sessions need {(power.needMs / 1000).toFixed(1)} s
                {power.fits === false ? ' · too short' : power.fits ? ' · fits' : ''}
              </span>
              <span className="hint">
                <WithCode text={`${power.window.note}. ${power.advice.charAt(0).toUpperCase()}${power.advice.slice(1)}.`} />
              </span>
            </div>
          )}
          <NumberSetting
            label="Seconds a pause before sleep may take (0: the sleep window)"
            hint="Past it, sessions whose memory is not written yet stay frozen (their memory survives sleep) and are written after wake."
            value={value.pauseDeadlineSeconds ?? 0}
            min={0}
            max={3600}
            onSave={(v) => save({ pauseDeadlineSeconds: v === 0 ? null : v })}
          />
          <NumberSetting label="Idle minutes before a session pauses itself" hint="No typing, no ssh traffic, no command running through Berth; 0 turns it off." value={value.idleAfterSeconds} scale={60} min={0} max={7 * 24 * 60} onSave={(v) => save({ idleAfterSeconds: v })} />
        </fieldset>
        <fieldset>
          <legend>Addresses</legend>
          {routes && (
            <div className="field">
              <span>ssh gateway {routes.gateway.listening ? `listening on ${routes.gateway.host}:${routes.gateway.port}` : 'not listening'}.</span>
              <span>
                Its host key: <code className="fingerprint-inline">{routes.gateway.hostKeyFingerprint}</code>
              </span>
              <span className="hint">
                Every session is <code>ssh ROUTE.berth</code> once this line is at the top of ~/.ssh/config (Berth never edits that file):
              </span>
              <span className="row">
                <CopyLine text={routes.sshConfig.includeLine} label="ssh config include line" />
                <button className="small" onClick={() => void writeSshConfig()}>
                  Write {routes.sshConfig.path}
                </button>
              </span>
            </div>
          )}
          <NumberSetting label="ssh gateway port" hint="ssh -p PORT route@127.0.0.1 reaches a session; the next free port is used if it is taken." value={value.gatewayPort} min={1} max={65535} onSave={(v) => save({ gatewayPort: v })} />
          <NumberSetting label="Preview port" hint="http://ROUTE-PORT-KEY.localhost:PORT/ shows a web server running inside a session (each session lists its own addresses)." value={value.previewPort} min={1} max={65535} onSave={(v) => save({ previewPort: v })} />
          <label className="choice">
            <input type="checkbox" checked={value.allowAgentForwarding} onChange={(e) => void save({ allowAgentForwarding: e.target.checked }).catch(() => undefined)} />
            <span>
              Allow ssh agent forwarding into sessions
              <small>Off by default: code in a session could use your keys while you are connected.</small>
            </span>
          </label>
          <label className="choice">
            <input type="checkbox" checked={value.resumeUserPausedOnConnect} onChange={(e) => void save({ resumeUserPausedOnConnect: e.target.checked }).catch(() => undefined)} />
            <span>
              An ssh connection resumes a session I paused myself
              <small>Off: it answers that the session is paused.</small>
            </span>
          </label>
        </fieldset>
        <fieldset>
          <legend>Snapshots</legend>
          <NumberSetting label="Seal a running session's disk every (minutes)" hint="A server that dies loses at most this much work; 0 turns sealing off." value={value.sealMinutes} min={0} max={24 * 60} onSave={(v) => save({ sealMinutes: v })} />
          <NumberSetting label="Automatic checkpoints kept per session" hint="Never one that a fork, a named snapshot or a rewind depends on." value={value.keepAutomatic} min={1} max={1000} onSave={(v) => save({ keepAutomatic: v })} />
          <NumberSetting label="List paused sessions for clean-up after (days)" hint="Listed, never deleted silently." value={value.staleAfterDays} min={1} max={3650} onSave={(v) => save({ staleAfterDays: v })} />
        </fieldset>
        <DesktopSettings value={value} save={save} />
        <fieldset>
          <legend>Rates</legend>
          <p className="muted" style={{ margin: 0 }}>
            What an hour of a running session costs on each server; paused sessions cost nothing.
          </p>
          {servers.map((s) => (
            <NumberSetting
              key={s.name}
              label={`${s.name}: dollars per running hour`}
              hint={s.kind === 'local' ? 'this machine' : s.url}
              value={s.ratePerHour}
              min={0}
              max={1_000_000}
              step={0.01}
              onSave={(v) => stores.servers.getState().setRate(s.name, v)}
            />
          ))}
        </fieldset>
      </div>
      <MachineChecks />
    </section>
  )
}

/** The app itself: launch at login, its berth command, its logs. */
function DesktopSettings({ value, save }: { value: Settings; save(patch: Partial<Settings>): Promise<void> }) {
  const stores = useStores()
  const app = stores.client.app
  const [logs, setLogs] = useState<string | null>(null)
  useEffect(() => {
    stores.client.call('daemon.info', {}).then((i) => setLogs(i.logs), () => setLogs(null))
  }, [stores])
  const installHook = async () => {
    try {
      const r = await stores.client.call('power.installHook', {})
      stores.ui.getState().info(`Wrote ${r.files.map((f) => f.path).join(', ')}: ${r.note}`)
    } catch (e) {
      stores.ui.getState().fail(e)
    }
  }
  const install = async () => {
    const r = await app.installCommandLine!()
    if (r.ok) stores.ui.getState().info(r.message)
    else stores.ui.getState().fail(new Error(r.message))
  }
  return (
    <fieldset>
      <legend>Berth itself</legend>
      <label className="field">
        Start Berth at login
        <select aria-label="Start Berth at login" value={value.launchAtLogin} onChange={(e) => void save({ launchAtLogin: e.target.value as Settings['launchAtLogin'] }).catch(() => undefined)}>
          <option value="auto">On laptops (this machine has a battery)</option>
          <option value="on">Always</option>
          <option value="off">Never</option>
        </select>
        <span className="hint">Sessions pause before the lid closes only while Berth runs; it starts in the tray.{stores.client.host === 'browser' ? ' (The desktop app applies this.)' : ''}</span>
      </label>
      <div className="field">
        <span>The berth command</span>
        <span className="row">
          {app.installCommandLine ? (
            <button className="small" onClick={() => void install()}>
              Install command line tool
            </button>
          ) : (
            <span className="hint">Installed with the app (the deb puts it in /usr/bin); in a checkout it is bin/berth.</span>
          )}
        </span>
      </div>
      <div className="field">
        <span>The sleep hook</span>
        <span className="row">
          <button className="small" onClick={() => void installHook()}>
            Install the sleep hook
          </button>
        </span>
        <span className="hint">Pauses sessions before the machine sleeps even when only the daemon runs, through the berth command (on Linux it needs root: sudo berth power install-hook).</span>
      </div>
      {logs && (
        <div className="field">
          <span>Logs (the last 5 x 5 MiB)</span>
          <span className="row">
            <CopyLine text={logs} label="logs folder" />
            {app.openLogs ? (
              <button className="small" onClick={() => void app.openLogs!()}>
                Open logs
              </button>
            ) : null}
          </span>
        </div>
      )}
    </fieldset>
  )
}
