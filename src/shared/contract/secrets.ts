import { z } from 'zod'
import { call, SecretName } from './define'

export const SecretInfo = z.object({ name: z.string(), updatedAt: z.string() })

export const secretCalls = {
  'secret.set': call(
    z.object({
      name: SecretName,
      /** the value's exact bytes, base64 (a secret may be binary, a key file for instance); at most 64 KiB */
      valueBase64: z.string().min(1).max(88 * 1024).regex(/^[A-Za-z0-9+/]*={0,2}$/, 'the value must be base64'),
    }),
    SecretInfo.extend({ created: z.boolean() }),
    'store a secret (never shown again, never in a snapshot); sessions get it as /run/berth/secrets/NAME',
  ),
  'secret.list': call(z.object({}), z.array(SecretInfo), 'names of stored secrets (never their values)'),
  'secret.remove': call(z.object({ name: SecretName }), z.object({ removed: z.boolean() }), 'forget a secret'),
} as const
