// Berth's settings: one typed object, composed from each domain's keys, each with its default.
import { z } from 'zod'
import { powerSettings } from './settings/power'
import { routeSettings } from './settings/routes'
import { snapshotSettings } from './settings/snapshots'

export const Settings = z.object({ ...powerSettings, ...snapshotSettings, ...routeSettings })
export type Settings = z.infer<typeof Settings>
export type SettingKey = keyof Settings

export const SettingsPatch = Settings.partial().strict()
export type SettingsPatch = z.infer<typeof SettingsPatch>

export const DEFAULT_SETTINGS: Settings = Settings.parse({})
