import { z } from 'zod'
import { call } from './define'

// The ssh gateway and the preview proxy: where they listen now, and the ssh config file that
// names every live session (`Host <route>.berth`).

export const GatewayInfo = z.object({
  host: z.string(),
  /** the port the gateway listens on now (the setting's, or the next free one) */
  port: z.number().int(),
  listening: z.boolean(),
  /** SHA256:... of the gateway's host key, generated once and kept in BERTH_HOME */
  hostKeyFingerprint: z.string(),
  /** the name clients record the host key under (HostKeyAlias), whatever the port */
  hostKeyAlias: z.string(),
  connections: z.number().int(),
})
export type GatewayInfo = z.infer<typeof GatewayInfo>

export const PreviewInfo = z.object({
  host: z.string(),
  port: z.number().int(),
  listening: z.boolean(),
})

export const SshConfigFile = z.object({
  path: z.string(),
  /** the one line the user adds at the top of ~/.ssh/config; Berth never edits that file */
  includeLine: z.string(),
})

export const RoutesInfo = z.object({
  gateway: GatewayInfo,
  preview: PreviewInfo,
  sshConfig: SshConfigFile,
})
export type RoutesInfo = z.infer<typeof RoutesInfo>

export const SshConfigResult = SshConfigFile.extend({
  text: z.string(),
  written: z.boolean(),
  hosts: z.array(z.string()),
})
export type SshConfigResult = z.infer<typeof SshConfigResult>

export const routeCalls = {
  'routes.info': call(z.object({}), RoutesInfo, 'where the ssh gateway and the preview proxy listen'),
  'routes.sshConfig': call(
    z.object({ write: z.boolean().optional() }),
    SshConfigResult,
    'the ssh config with a Host block per live session; write: also (re)write the file Berth keeps up to date',
  ),
} as const
