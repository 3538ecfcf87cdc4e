import { DEFAULT_SETTINGS, Settings, type SettingKey } from '../../shared/settings'
import type { Command } from '../command'
import { printFields, printJson, UsageError, say } from '../output'

const KEYS = Object.keys(Settings.shape) as SettingKey[]
const SET_USAGE = `berth settings set KEY VALUE   (KEY: ${KEYS.join(', ')})`

/** A value on the command line: JSON when it parses (numbers, true/false, arrays), else a string. */
function parseValue(raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}

export const settingsCommands: Command[] = [
  {
    path: ['settings'],
    usage: 'berth settings [KEY] [--json]',
    summary: 'show settings (all, or one)',
    group: 'settings',
    args: [{ name: 'KEY', help: 'one setting', complete: 'setting' }],
    positionals: [0, 1],
    async run(p, io) {
      const all = await (await io.client()).call('settings.get', {})
      const key = p.positionals[0]
      if (key !== undefined && !KEYS.includes(key as SettingKey)) throw new UsageError(`unknown setting: ${key}`, `berth settings [${KEYS.join('|')}]`)
      const shown = key ? { [key]: all[key as SettingKey] } : all
      if (io.json) printJson(shown)
      else
        printFields(
          Object.entries(shown).map(([k, v]) => [k, `${JSON.stringify(v)}${JSON.stringify(v) === JSON.stringify(DEFAULT_SETTINGS[k as SettingKey]) ? '' : ' (changed)'}`]),
        )
      return 0
    },
  },
  {
    path: ['settings', 'set'],
    usage: SET_USAGE,
    summary: 'change one setting',
    group: 'settings',
    args: [
      { name: 'KEY', help: 'the setting (berth settings lists them)', complete: 'setting' },
      { name: 'VALUE', help: 'its new value: JSON when it parses (600, true, ["..."]), else text' },
    ],
    positionals: [2, 2],
    async run(p, io) {
      const [key, raw] = p.positionals as [string, string]
      if (!KEYS.includes(key as SettingKey)) throw new UsageError(`unknown setting: ${key}`, SET_USAGE)
      const next = await (await io.client()).call('settings.set', { patch: { [key]: parseValue(raw) } })
      if (io.json) printJson(next)
      else say(`${key} = ${JSON.stringify(next[key as SettingKey])}\n`)
      return 0
    },
  },
]
