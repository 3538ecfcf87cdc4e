import { useState } from 'react'
import { useStores } from '../stores/app-stores'

/** A line to copy (the ssh line): one click puts it on the clipboard. */
export function CopyLine({ text, label }: { text: string; label: string }) {
  const { client } = useStores()
  const [copied, setCopied] = useState(false)
  const copy = async () => {
    try {
      await (client.app.writeClipboard?.(text) ?? navigator.clipboard.writeText(text))
      setCopied(true)
      setTimeout(() => setCopied(false), 1500)
    } catch {
      setCopied(false)
    }
  }
  return (
    <span className="copy-line" aria-label={label}>
      <span data-testid="copy-text">{text}</span>
      <button className="small" onClick={() => void copy()}>
        {copied ? 'Copied' : 'Copy'}
      </button>
    </span>
  )
}
