import { z } from 'zod'
import { Settings, SettingsPatch } from '../settings'
import { call } from './define'

export const settingsCalls = {
  'settings.get': call(z.object({}), Settings, 'all settings, with their defaults filled in'),
  'settings.set': call(z.object({ patch: SettingsPatch }), Settings, 'change some settings'),
} as const
