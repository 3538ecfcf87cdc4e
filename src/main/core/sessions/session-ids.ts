import { randomInt } from 'node:crypto'

// Short, readable, unique names that are also valid ssh user names and DNS labels.
const ADJECTIVES = [
  'amber', 'bold', 'brave', 'brisk', 'calm', 'clear', 'cool', 'crisp', 'deft', 'eager', 'fair', 'fleet', 'fond', 'glad',
  'grand', 'keen', 'kind', 'lucid', 'merry', 'mild', 'neat', 'noble', 'plain', 'quick', 'quiet', 'rapid', 'ready', 'sharp',
  'sleek', 'snug', 'solid', 'spry', 'steady', 'still', 'sunny', 'swift', 'tidy', 'true', 'vivid', 'warm', 'wise', 'witty',
] as const
const ANIMALS = [
  'otter', 'heron', 'lynx', 'finch', 'badger', 'bison', 'crane', 'eagle', 'falcon', 'ferret', 'gecko', 'hare', 'ibis',
  'koala', 'lark', 'lemur', 'marten', 'mole', 'moose', 'newt', 'orca', 'owl', 'panda', 'puffin', 'quail', 'raven', 'robin',
  'seal', 'shrew', 'skink', 'sloth', 'stoat', 'swift', 'tapir', 'tern', 'toad', 'trout', 'viper', 'vole', 'walrus', 'wren', 'yak',
] as const

const pick = <T>(xs: readonly T[]): T => xs[randomInt(xs.length)]!

export function newRouteId(taken: (route: string) => boolean): string {
  for (let i = 0; i < 1000; i++) {
    const route = `${pick(ADJECTIVES)}-${pick(ANIMALS)}-${randomInt(10, 100)}`
    if (!taken(route)) return route
  }
  throw new Error('no free route id')
}

const ID_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789'
/** Session ids: 10 characters, no look-alikes. */
export function newSessionId(): string {
  let s = ''
  for (let i = 0; i < 10; i++) s += ID_ALPHABET[randomInt(ID_ALPHABET.length)]
  return s
}
