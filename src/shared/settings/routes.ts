import { z } from 'zod'

const KEY_TYPE = String.raw`(?:ssh-(?:ed25519|rsa)|ecdsa-sha2-nistp(?:256|384|521)|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)`
/** One OpenSSH public key line ("ssh-ed25519 AAAA... comment"), nothing in front of it. */
export const PUBLIC_KEY_LINE = new RegExp(String.raw`^${KEY_TYPE}\s+[A-Za-z0-9+/]+=*(?:\s[^\n]*)?$`)
/** A key with authorized_keys options in front (from=, command=, restrict...), which the gateway cannot honour. */
const WITH_OPTIONS = new RegExp(String.raw`^\S.*?\s${KEY_TYPE}\s+[A-Za-z0-9+/]+=*(?:\s[^\n]*)?$`)

/** Says what is wrong with a line of the authorizedKeys setting, precisely (the node side also checks that the key parses). */
const authorizedKey = z
  .string()
  .max(16 * 1024)
  .superRefine((line, ctx) => {
    const t = line.trim()
    if (PUBLIC_KEY_LINE.test(t)) return
    const message = WITH_OPTIONS.test(t)
      ? 'authorized_keys options (from=, command=, restrict, ...) are not supported by the Berth gateway, which cannot honour them: give the key alone, "ssh-ed25519 AAAA... me@laptop"'
      : /^ssh-dss\s/.test(t)
        ? 'DSA keys are not accepted: use an ed25519, ECDSA or RSA key'
        : 'each authorized key is one OpenSSH public key line, e.g. "ssh-ed25519 AAAA... me@laptop"'
    ctx.addIssue({ code: 'custom', message })
  })

// The ssh gateway and preview addresses (issue 5 owns these keys).
export const routeSettings = {
  /** loopback port of the ssh gateway (the next free one is used if taken) */
  gatewayPort: z.number().int().min(1).max(65535).default(2222),
  /** loopback port of the preview proxy (http://<route>-<port>-<key>.localhost:<previewPort>/) */
  previewPort: z.number().int().min(1).max(65535).default(8022),
  /** extra public keys allowed into the gateway, besides ~/.ssh/*.pub */
  authorizedKeys: z.array(authorizedKey).max(256).default([]),
  allowAgentForwarding: z.boolean().default(false),
  /** a connection to a session the user paused resumes it (off: it answers with a message) */
  resumeUserPausedOnConnect: z.boolean().default(false),
}
