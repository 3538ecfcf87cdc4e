import { useServers } from '../stores/app-stores'

/** A list's server filter: each server Berth knows, and the value ALL for no filter. */
export function ServerFilter({ label, value, all, onChange }: { label: string; value: string; all: string; onChange(server: string): void }) {
  const servers = useServers((s) => s.list)
  return (
    <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value={all}>All servers</option>
      {servers.map((s) => (
        <option key={s.name} value={s.name}>
          {s.name}
        </option>
      ))}
    </select>
  )
}
