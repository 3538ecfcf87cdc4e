import { z } from 'zod'

/** One OpenSSH public key line ("ssh-ed25519 AAAA... comment"); authorized_keys options in front are allowed. */
const PUBLIC_KEY = /^(?:\S+\s+)?(?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-nistp(?:256|384|521)|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)\s+[A-Za-z0-9+/]+=*(?:\s.*)?$/

// The ssh gateway and preview addresses (issue 5 owns these keys).
export const routeSettings = {
  /** loopback port of the ssh gateway (the next free one is used if taken) */
  gatewayPort: z.number().int().min(1).max(65535).default(2222),
  /** loopback port of the preview proxy (http://<route>-<port>-<key>.localhost:<previewPort>/) */
  previewPort: z.number().int().min(1).max(65535).default(8022),
  /** extra public keys allowed into the gateway, besides ~/.ssh/*.pub */
  authorizedKeys: z
    .array(
      z
        .string()
        .max(16 * 1024)
        .regex(PUBLIC_KEY, 'each authorized key is one OpenSSH public key line, e.g. "ssh-ed25519 AAAA... me@laptop"'),
    )
    .max(256)
    .default([]),
  allowAgentForwarding: z.boolean().default(false),
  /** a connection to a session the user paused resumes it (off: it answers with a message) */
  resumeUserPausedOnConnect: z.boolean().default(false),
}
