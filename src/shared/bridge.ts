// What the renderer sees as `window.berth`: the contract's calls and events, nothing else. The
// Electron preload provides it over IPC; in a browser (`berth serve`) the renderer builds the same
// object over the WebSocket door. Types only: this file has no runtime part.
import type { CallArgs, CallName, CallResult, EventName, EventPayload } from './contract'
import type { StreamBytes } from './stream-frames'
import type { Envelope } from './wire'

export type { StreamBytes } from './stream-frames'

export interface BerthBridge {
  /** which door the renderer talks through */
  readonly host: 'electron' | 'browser'
  readonly core: {
    /** Calls the core; errors come back in the envelope, never as a thrown error without its code. */
    call<N extends CallName>(name: N, args: CallArgs<N>): Promise<Envelope<CallResult<N>>>
    /** Listens to a contract event; returns the function that stops listening. */
    on<E extends EventName>(name: E, listener: (payload: EventPayload<E>) => void): () => void
    /**
     * For a door that carries stream output as bytes (the Electron window, the WebSocket door's
     * worker): its stream.data events arrive here, and never through on().
     */
    onStreamBytes?(listener: (data: StreamBytes) => void): () => void
  }
  /**
   * Connection state for doors that can drop (the WebSocket): called with false when the link is
   * lost and true when it is back; streams do not survive a drop, calls made meanwhile fail.
   */
  onConnection?(listener: (up: boolean) => void): () => void
  readonly app: {
    /** Opens an allow-listed address (docs, a session's preview) in the user's browser. */
    openExternal(url: string): Promise<boolean>
    /** Clipboard text through the shell (Electron) where the page has no clipboard permission. */
    readClipboard?(): Promise<string>
    writeClipboard?(text: string): Promise<void>
    /** The desktop app: opens the folder of Berth's log files in the file manager. */
    openLogs?(): Promise<boolean>
    /** The desktop app: puts a `berth` command on the PATH that runs the app's own CLI. */
    installCommandLine?(): Promise<{ ok: boolean; path: string | null; message: string }>
  }
}
