import { z } from 'zod'

// The desktop app's own keys (issue 17).
export const desktopSettings = {
  /** start the app (in the tray) at login: auto means on when this machine has a battery, as
   * sessions pause at lid close only while Berth runs */
  launchAtLogin: z.enum(['auto', 'on', 'off']).default('auto'),
}
