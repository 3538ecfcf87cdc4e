// Integration tests run the built CLI against the real engines: build it once, check the test host.
import { execFileSync } from 'node:child_process'
import { testHost } from './testhost'

export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build-cli.mjs'], { stdio: 'inherit' })
  testHost()
}
