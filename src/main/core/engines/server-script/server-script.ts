// The server-side part of pause, resume, checkpoints and transfers: one POSIX sh program, built from
// the real shell files in ./server (each with one job, checked by shellcheck in the tests), that
// Berth installs on a server (in the ssh user's state folder) and runs there with DOCKER_HOST set.
// The files are bundled as text (the build's '.sh' loader); the installed file's name carries a
// hash of the whole, so an updated Berth installs its own next to the old one.
import { createHash } from 'node:crypto'
import checkpoint from './sh/checkpoint.sh'
import common from './sh/common.sh'
import diff from './sh/diff.sh'
import engine from './sh/engine.sh'
import freeze from './sh/freeze.sh'
import images from './sh/images.sh'
import jobs from './sh/jobs.sh'
import lazy from './sh/lazy.sh'
import main from './sh/main.sh'
import pause from './sh/pause.sh'
import probe from './sh/probe.sh'
import root from './sh/root.sh'
import transfer from './sh/transfer.sh'

/** The parts in the order they are joined: the common definitions first, the dispatch last. */
export const SERVER_SCRIPT_PARTS: ReadonlyArray<readonly [file: string, text: string]> = [
  ['common.sh', common],
  ['jobs.sh', jobs],
  ['root.sh', root],
  ['engine.sh', engine],
  ['freeze.sh', freeze],
  ['checkpoint.sh', checkpoint],
  ['lazy.sh', lazy],
  ['probe.sh', probe],
  ['pause.sh', pause],
  ['transfer.sh', transfer],
  ['images.sh', images],
  ['diff.sh', diff],
  ['main.sh', main],
]

export const SERVER_SCRIPT = SERVER_SCRIPT_PARTS.map(([, text]) => text).join('')

export const SERVER_SCRIPT_HASH = createHash('sha256').update(SERVER_SCRIPT).digest('hex').slice(0, 12)
