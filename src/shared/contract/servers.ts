import { z } from 'zod'
import { HostKeyProbe, Server, ServerTest } from '../models'
import { call } from './define'

export const ServerName = z
  .string()
  .min(1)
  .max(32)
  .regex(/^[a-z][a-z0-9-]*$/, 'a server name is lowercase letters, digits and dashes, starting with a letter')

export const SshUrl = z
  .string()
  .regex(/^ssh:\/\/[^@\s/]+@[^:\s/]+(:\d{1,5})?\/?$/, 'a server address looks like ssh://USER@HOST:PORT')

/** What ssh takes: ssh://USER@HOST:PORT, or [USER@]NAME where NAME may be a Host of ~/.ssh/config. */
export const ServerAddress = z
  .string()
  .max(255)
  .refine(
    (v) => SshUrl.safeParse(v).success || /^(?:[A-Za-z0-9._][A-Za-z0-9._-]*@)?[A-Za-z0-9_][A-Za-z0-9._-]*$/.test(v),
    'a server address looks like ssh://USER@HOST:PORT, or a Host of your ~/.ssh/config',
  )

export const serverCalls = {
  'server.add': call(
    z.object({
      name: ServerName,
      url: ServerAddress,
      identity: z.string().min(1).optional(),
      acceptHostKey: z.string().regex(/^SHA256:[A-Za-z0-9+/]+=*$/, 'a fingerprint looks like SHA256:...').optional(),
    }),
    Server.extend({
      /** how its host key came to be trusted: found in ~/.ssh/known_hosts (where), confirmed, or known already */
      hostKeyTrust: z.string(),
    }),
    'connect a server over ssh (an address or a Host of ~/.ssh/config), once its host key is trusted',
  ),
  'server.probe': call(
    z.object({ url: ServerAddress, identity: z.string().min(1).optional() }),
    HostKeyProbe,
    'read a server host key fingerprint without storing anything',
  ),
  'server.list': call(z.object({}), z.array(Server), 'list servers'),
  'server.remove': call(
    z.object({ name: ServerName }),
    z.object({
      removed: z.boolean(),
      /** Berth's root helper on the server: removed with it, none there, or left (the server did not answer) */
      helper: z.enum(['removed', 'none', 'left']).optional(),
    }),
    'forget a connected server, and remove the helper Berth started there',
  ),
  'server.test': call(z.object({ name: ServerName }), ServerTest, 'engine version, round-trip time and a fresh memory-pause test of a server'),
  'server.show': call(z.object({ name: ServerName }), Server, 'one server: its address, state and whether it can pause with memory'),
} as const
