// What scripts/testhost.sh built on this machine (it writes testhost.env for the tests to read).
import { existsSync, readFileSync } from 'node:fs'

export interface TestHost {
  localSocket: string
  officeUrl: string
  officeSocket: string
  officeIdentity: string
  officeFingerprint: string
  officeSshdPid: string
  officeDataRoot: string
  baseImage: string
  tinyImage: string
  /** the CRIU the engines run, and the same CRIU without the CRIU_FAULT=130 this machine may need */
  criu: string
  criuPlain: string
  /** whether a plain CRIU dump hangs here (hardware breakpoints that never fire) */
  criuNeedsFault: boolean
  /** a CRIU of 4.2 or later, which saves TCP sockets on Linux 6.16 and later (trixie's 4.1 cannot) */
  criuSockets: string
}

let cached: TestHost | undefined

export function testHost(): TestHost {
  if (cached) return cached
  const file = process.env.BERTH_TESTHOST_ENV ?? '/var/lib/berth-testhost/testhost.env'
  if (!existsSync(file)) throw new Error(`no test host: ${file} is missing; run scripts/testhost.sh as root first`)
  const env = Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  ) as Record<string, string>
  cached = {
    localSocket: env.BERTH_TEST_LOCAL_SOCKET!,
    officeUrl: env.BERTH_TEST_OFFICE_URL!,
    officeSocket: env.BERTH_TEST_OFFICE_SOCKET!,
    officeIdentity: env.BERTH_TEST_OFFICE_IDENTITY!,
    officeFingerprint: env.BERTH_TEST_OFFICE_HOSTKEY_FP!,
    officeSshdPid: env.BERTH_TEST_OFFICE_SSHD_PID!,
    officeDataRoot: env.BERTH_TEST_OFFICE_DATA_ROOT!,
    baseImage: env.BERTH_TEST_BASE_IMAGE!,
    tinyImage: env.BERTH_TEST_TINY_IMAGE!,
    criu: env.BERTH_TEST_CRIU ?? '/usr/local/sbin/criu',
    criuPlain: env.BERTH_TEST_CRIU_PLAIN ?? '/usr/local/sbin/criu-plain',
    criuNeedsFault: env.BERTH_TEST_CRIU_NEEDS_FAULT === '1',
    criuSockets: env.BERTH_TEST_CRIU_SOCKETS ?? '/usr/local/sbin/criu-sockets',
  }
  return cached
}
