// The gateway's record of one ssh connection, shared by the gateway and its channels.
import type { Socket } from 'node:net'
import type { Connection } from 'ssh2'

export interface GatewayConn {
  socket: Socket
  client: Connection | undefined
  remote: string
  /** the peer address the PeerGuard counts it under */
  peer: string
  authenticated: boolean
  /** whether the client asked to authenticate at all (a scanner that only reads the banner did not fail) */
  triedAuth: boolean
  authAttempts: number
  route: string | undefined
  sessionId: string | undefined
  /** why this connection may not reach its session (said on any channel it opens) */
  refusal: string | undefined
  channels: number
  lastActive: number
  authTimer: NodeJS.Timeout
}

/** The live shell/exec/sftp channels of each session, to tell them what happens to it. */
export class LiveChannels {
  private readonly bySession = new Map<string, Set<(line: string) => void>>()

  add(sessionId: string, tell: (line: string) => void): () => void {
    const tells = this.bySession.get(sessionId) ?? new Set<(line: string) => void>()
    this.bySession.set(sessionId, tells)
    tells.add(tell)
    return () => {
      tells.delete(tell)
      if (!tells.size) this.bySession.delete(sessionId)
    }
  }

  /** Says a line on the stderr of every live channel into this session; returns how many heard it. */
  notify(sessionId: string, line: string): number {
    const tells = this.bySession.get(sessionId)
    for (const tell of tells ?? []) tell(line)
    return tells?.size ?? 0
  }
}
