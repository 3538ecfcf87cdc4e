// The core's sentences name the CLI's flags (the same errors reach `berth server add`); in the
// dialog they name the dialog's own fields instead.
import { describeError, type Problem } from '../../api/errors'

const FIELDS: Array<[RegExp, string]> = [
  [/pass --identity FILE/g, 'choose a key in the Identity file field'],
  [/--identity(?: FILE)?/g, 'the Identity file field'],
  [/--name(?: NAME)?/g, 'the Name field'],
  [/--url(?: URL)?/g, 'the Address field'],
  [/--yes|--fingerprint(?: \S+)?/g, 'the fingerprint confirmation'],
]

export function inDialogWords(text: string): string {
  return FIELDS.reduce((t, [re, words]) => t.replace(re, words), text)
}

/** The problem as ProblemLine shows it, spoken in the add-server dialog's words. */
export function dialogProblem(e: unknown): Problem {
  const p = describeError(e)
  return { ...p, message: inDialogWords(p.message) }
}
