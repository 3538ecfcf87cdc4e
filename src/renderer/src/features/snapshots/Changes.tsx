// What changed in a snapshot's session since the checkpoint before (or any other chosen): the files
// added, changed and deleted, and a text diff of one small text file.
import type { Snapshot } from '../../../../shared/models'
import type { DiffEntry } from '../../../../shared/contract/snapshot-browser'
import { ProblemLine } from '../../components/ProblemLine'
import { bytes } from '../../lib/format'
import { useBrowser, useStores } from '../../stores/app-stores'

const MARK: Record<DiffEntry['status'], string> = { added: 'A', changed: 'M', deleted: 'D' }

function FileDiffView() {
  const file = useBrowser((s) => s.file)
  if (!file) return null
  return (
    <section className="file-diff" aria-label={`diff of ${file.path}`}>
      <h3 className="mono">{file.path}</h3>
      {file.loading ? (
        <p className="muted">Comparing…</p>
      ) : file.error ? (
        <ProblemLine error={file.error} />
      ) : file.result?.kind === 'binary' ? (
        <p className="muted">A binary file: no text diff.</p>
      ) : file.result?.kind === 'large' ? (
        <p className="muted">{bytes(file.result.bytes)}: too large for a text diff.</p>
      ) : (
        <pre className="diff-text">
          {(file.result?.text ?? '').split('\n').map((l, i) => (
            <span key={i} className={l.startsWith('+') && !l.startsWith('+++') ? 'add' : l.startsWith('-') && !l.startsWith('---') ? 'del' : undefined}>
              {l}
              {'\n'}
            </span>
          ))}
          {file.result?.truncated ? '(cut: the diff goes on)\n' : ''}
        </pre>
      )}
    </section>
  )
}

export function Changes({ snap, choices }: { snap: Snapshot; choices: string[] }) {
  const { browser } = useStores()
  const diff = useBrowser((s) => s.diff)
  const compareWith = useBrowser((s) => s.compareWith)
  const open = useBrowser((s) => s.file?.path ?? null)
  return (
    <section className="changes" aria-labelledby="changes-title">
      <div className="screen-head">
        <h2 id="changes-title">What changed</h2>
        <label className="choice" style={{ alignItems: 'center' }}>
          since
          <select aria-label="compare with" value={compareWith} onChange={(e) => browser.getState().compare(e.target.value)}>
            <option value="">the checkpoint before</option>
            {choices.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
      </div>
      {!diff || diff.to !== snap.id ? null : diff.error ? (
        <ProblemLine error={diff.error} onRetry={() => browser.getState().compare(compareWith)} />
      ) : diff.loading && diff.items.length === 0 ? (
        <p className="muted" role="status">
          Listing the changes on {snap.server}…
        </p>
      ) : (
        <>
          <p className="muted" role="status">
            {diff.total === 0 ? `Nothing changed since ${diff.label}.` : `${diff.total} file${diff.total === 1 ? '' : 's'} changed since ${diff.label}.`}
          </p>
          <ul className="diff-list" aria-label="changed files">
            {diff.items.map((e) => (
              <li key={e.path} className={`diff-${e.status}`}>
                <span className="mark" aria-label={e.status} title={e.status}>
                  {MARK[e.status]}
                </span>
                {e.type === 'file' ? (
                  <button className="link mono" aria-expanded={open === e.path} onClick={() => void browser.getState().showFile(open === e.path ? null : e.path)}>
                    {e.path}
                  </button>
                ) : (
                  <span className="mono">{e.path}</span>
                )}
                <span className="muted">{e.type === 'file' ? bytes(e.size) : e.type}</span>
              </li>
            ))}
          </ul>
          {diff.next !== null && (
            <button onClick={() => void browser.getState().more()} disabled={diff.loading}>
              {diff.loading ? 'Loading…' : `Show more (${diff.total - diff.items.length} left)`}
            </button>
          )}
          <FileDiffView />
        </>
      )}
    </section>
  )
}
