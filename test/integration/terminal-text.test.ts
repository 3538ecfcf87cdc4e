// Text a session or an engine chose (a commit subject, an image's user, an image name) reaches the
// user's terminal through the CLI: it is shown with its escape sequences written out, never obeyed,
// while --json keeps the exact value.
import { rmSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { BerthHome, localDocker } from '../support/berth'
import { gitRepo } from '../support/git-repo'
import { testHost } from '../support/testhost'

const h = testHost()
// retitles the window, clears the screen, rings the bell: what a hostile session would print
const ESCAPES = '\x1b]0;pwned\x07\x1b[2J\x9b31m'
const SHOWN = '\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m'
/** A terminal control character anywhere but a newline or tab (C0, DEL, C1). */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/

describe('session and engine text in the terminal', () => {
  const berth = new BerthHome('tty')
  const dirs: string[] = []
  const images: string[] = []
  afterAll(async () => {
    await berth.cleanup()
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
    for (const i of images) await localDocker().getImage(i).remove({ force: true }).catch(() => undefined)
  })

  it("prints a commit subject the session wrote escaped in workspace status, exact in --json", async () => {
    const dir = gitRepo({ 'README.md': '# app\n' })
    dirs.push(dir)
    await berth.json(['session', 'create', '--image', h.baseImage, '--workspace', dir, '--name', 'scribe'])
    const made = await berth.run(['exec', 'scribe', '--', 'git', '-c', 'user.name=Agent', '-c', 'user.email=agent@example.com', 'commit', '-q', '--allow-empty', '-m', `subject ${ESCAPES} end`])
    expect(made.code).toBe(0)
    const shown = await berth.run(['workspace', 'status', 'scribe'])
    expect(shown.code).toBe(0)
    expect(shown.stdout).toContain(`subject ${SHOWN} end`)
    expect(shown.stdout).not.toMatch(CONTROL)
    const json = await berth.run(['workspace', 'status', 'scribe', '--json'])
    expect(json.stdout).not.toMatch(CONTROL)
    expect(JSON.parse(json.stdout).unsavedCommits[0]).toMatch(new RegExp(`^[0-9a-f]+ subject ${ESCAPES.replace(/[[\]]/g, '\\$&')} end$`))
  })

  it("prints the engine's refusal of an image whose user carries escapes, and the image names of sessions, escaped", async () => {
    const docker = localDocker()
    const tag = `berth-tty-${Date.now()}:t`
    const maker = await docker.createContainer({ Image: h.tinyImage, Cmd: ['true'] })
    await maker.commit({ repo: tag.split(':')[0], tag: 't', changes: `USER ${ESCAPES.slice(0, 10)}` })
    await maker.remove({ force: true })
    images.push(tag)
    const refused = await berth.run(['session', 'create', '--image', tag, '--name', 'hostile'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('unable to find user \\x1b]0;pwned\\x07')
    expect(refused.stderr).not.toMatch(CONTROL)
    // the failure stays with the session, escaped where it is shown
    const shown = await berth.run(['session', 'show', 'hostile'])
    expect(shown.stdout).toMatch(/failure: +.*unable to find user \\x1b\]0;pwned\\x07/)
    expect(shown.stdout).not.toMatch(CONTROL)
    const named = `${h.tinyImage.split(':')[0]}:${ESCAPES}`
    expect((await berth.run(['session', 'create', '--image', named, '--name', 'badtag'])).code).not.toBe(0)
    const list = await berth.run(['session', 'ls'])
    expect(list.stdout).toContain(`${h.tinyImage.split(':')[0]}:${SHOWN}`)
    expect(list.stdout).not.toMatch(CONTROL)
    const listed = await berth.json(['session', 'ls'])
    expect(listed.find((s: { name: string }) => s.name === 'badtag').image).toBe(named)
  })
})
