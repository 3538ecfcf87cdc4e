import { z } from 'zod'
import { call, SecretName } from './define'

export const SecretInfo = z.object({ name: z.string(), updatedAt: z.string() })

/** Where the values sit and what guards them (`berth secret info`). */
export const SecretProtection = z.object({
  /** the one store both hosts read: each value sealed under the home's key */
  file: z.string(),
  /** the home's key (0600): what a headless daemon opens the values with */
  keyFile: z.string(),
  sealed: z.literal('aes-256-gcm'),
  /** what the desktop app last found in the OS keychain (null: it never ran for this home) */
  keychain: z.object({ backend: z.string(), kept: z.boolean(), at: z.string() }).nullable(),
  /** one sentence for a person: says so plainly when the keychain is Electron's basic_text */
  note: z.string(),
})
export type SecretProtection = z.infer<typeof SecretProtection>

export const secretCalls = {
  'secret.set': call(
    z.object({
      name: SecretName,
      /** the value's exact bytes, base64 (a secret may be binary, a key file for instance); at most 64 KiB */
      valueBase64: z.string().min(1).max(88 * 1024).regex(/^[A-Za-z0-9+/]*={0,2}$/, 'the value must be base64'),
    }),
    SecretInfo.extend({ created: z.boolean() }),
    'store a secret (never shown again, never in a committed layer or a log); sessions get it as /run/berth/secrets/NAME, readable by their user only',
  ),
  'secret.list': call(z.object({}), z.array(SecretInfo), 'names of stored secrets (never their values)'),
  'secret.remove': call(z.object({ name: SecretName }), z.object({ removed: z.boolean() }), 'forget a secret'),
  'secret.info': call(z.object({}), SecretProtection, 'where secret values are stored and what protects them (the OS keychain, or not)'),
} as const
