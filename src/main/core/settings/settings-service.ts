import { Settings, SettingsPatch, type Settings as SettingsT } from '../../../shared/settings'
import { BerthError } from '../../../shared/errors'
import type { CoreBus } from '../bus'
import type { SettingsRepo } from '../store/settings-repo'

const KEY = 'settings'

/**
 * Settings are stored as one JSON object; reading fills in defaults for keys never set. The parsed
 * value is kept: the core holds the home's lock, so set() is the only writer, and listings read the
 * settings once per row.
 */
export class SettingsService {
  private cached: SettingsT | null = null
  /**
   * What the contract's schema cannot check (it runs in the renderer too): a feature adds a check
   * that returns why a new value is refused, e.g. a key ssh2 cannot read.
   */
  readonly checks: Array<(next: SettingsT, patch: SettingsPatch) => string | undefined> = []

  constructor(
    private readonly repo: SettingsRepo,
    private readonly bus: CoreBus,
  ) {}

  get(): SettingsT {
    return (this.cached ??= this.read())
  }

  private read(): SettingsT {
    const stored = this.repo.get<Record<string, unknown>>(KEY, {})
    // a value another version stored that no longer validates falls back to its default
    const valid: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(stored)) {
      const schema = Settings.shape[key as keyof SettingsT]
      if (schema?.safeParse(value).success) valid[key] = value
    }
    return Settings.parse(valid)
  }

  set(patch: SettingsPatch): SettingsT {
    const checked = SettingsPatch.parse(patch)
    const next = Settings.parse({ ...this.get(), ...checked })
    for (const check of this.checks) {
      const why = check(next, checked)
      if (why) throw new BerthError('usage', why)
    }
    this.repo.set(KEY, next)
    this.cached = next
    this.bus.emit('settings.changed', next)
    return next
  }
}
