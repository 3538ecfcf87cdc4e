// Berth's settings: one typed object, composed from each domain's keys, each with its default.
import { z } from 'zod'
import { desktopSettings } from './settings/desktop'
import { powerSettings } from './settings/power'
import { replicaSettings } from './settings/replicas'
import { routeSettings } from './settings/routes'
import { sessionSettings } from './settings/sessions'
import { snapshotSettings } from './settings/snapshots'

export const Settings = z.object({ ...powerSettings, ...snapshotSettings, ...routeSettings, ...desktopSettings, ...sessionSettings, ...replicaSettings })
export type Settings = z.infer<typeof Settings>
export type SettingKey = keyof Settings

/**
 * A change names only the keys it changes. Built from each key's schema without its default: a
 * partial of the defaulted schema would fill every missing key with its default, so changing one
 * setting would silently reset all the others.
 */
type PatchShape = { [K in keyof typeof Settings.shape]: z.ZodOptional<ReturnType<(typeof Settings.shape)[K]['unwrap']>> }
const patchShape = Object.fromEntries(
  Object.entries(Settings.shape).map(([key, schema]) => [key, (schema instanceof z.ZodDefault ? schema.unwrap() : schema).optional()]),
) as unknown as PatchShape
export const SettingsPatch = z.object(patchShape).strict()
export type SettingsPatch = z.infer<typeof SettingsPatch>

export const DEFAULT_SETTINGS: Settings = Settings.parse({})
