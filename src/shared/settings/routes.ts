import { z } from 'zod'

// The ssh gateway and preview addresses (issue 5 owns these keys).
export const routeSettings = {
  /** loopback port of the ssh gateway (the next free one is used if taken) */
  gatewayPort: z.number().int().min(1).max(65535).default(2222),
  /** loopback port of the preview proxy (http://<route>-<port>.localhost:<previewPort>/) */
  previewPort: z.number().int().min(1).max(65535).default(8022),
  /** extra public keys allowed into the gateway, besides ~/.ssh/*.pub */
  authorizedKeys: z.array(z.string()).default([]),
  allowAgentForwarding: z.boolean().default(false),
  /** a connection to a session the user paused resumes it (off: it answers with a message) */
  resumeUserPausedOnConnect: z.boolean().default(false),
}
