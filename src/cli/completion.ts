// Shell completion: `berth completion bash|zsh|fish` prints a script that asks `berth __complete
// WORDS...` for the candidates of the last word. Verbs and flags come from the Command objects;
// session, server, snapshot and secret names from the running core, only if one already runs
// (never started for a completion), within a fraction of a second, and nothing at all on failure.
import { Settings } from '../shared/settings'
import { ControlClient, controlSocket } from '../main/doors/control-client'
import { allOptions, type Command, type Completion } from './command'

export type Shell = 'bash' | 'zsh' | 'fish'
export const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish']

/** The answer that tells the shell to complete file names itself. */
export const FILES = ':files'

const NAME_DEADLINE_MS = 800

export type NameSource = (kind: 'session' | 'server' | 'snapshot' | 'secret') => Promise<string[]>

/** Names from the core that runs for this home; [] when none runs or it is slow to answer. */
export function coreNames(home: string): NameSource {
  return async (kind) => {
    let client: ControlClient | undefined
    const work = (async () => {
      client = await ControlClient.connect(controlSocket(home))
      switch (kind) {
        case 'session':
          return (await client.call('session.list', {})).filter((s) => s.state !== 'finished').map((s) => s.name)
        case 'server':
          return (await client.call('server.list', {})).map((s) => s.name)
        case 'snapshot':
          return (await client.call('snapshot.list', { limit: 200 })).items.map((s) => s.id)
        case 'secret':
          return (await client.call('secret.list', {})).map((s) => s.name)
      }
    })()
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<string[]>((resolve) => (timer = setTimeout(() => resolve([]), NAME_DEADLINE_MS)))
    try {
      return await Promise.race([work.catch(() => [] as string[]), late])
    } finally {
      clearTimeout(timer)
      ;(client as ControlClient | undefined)?.close()
    }
  }
}

async function values(c: Completion | undefined, names: NameSource): Promise<string[]> {
  if (!c) return []
  if (c === 'file') return [FILES]
  if (c === 'setting') return Object.keys(Settings.shape)
  if (typeof c === 'string') return await names(c)
  return [...c]
}

/** The command the words name (the longest path they start with) and the words after it. */
export function findCommand(commands: Command[], argv: string[]): { cmd: Command; rest: string[] } | undefined {
  let best: { cmd: Command; rest: string[] } | undefined
  for (const cmd of commands) {
    const n = cmd.path.length
    if (cmd.path.every((w, i) => argv[i] === w) && (!best || n > best.cmd.path.length)) best = { cmd, rest: argv.slice(n) }
  }
  return best
}

/** Candidates for the last of `words` (the word being typed, maybe empty), given the ones before it. */
export async function complete(commands: Command[], words: string[], names: NameSource): Promise<string[]> {
  const cur = words[words.length - 1] ?? ''
  const before = words.slice(0, -1)
  const found = findCommand(commands, before)
  const nextWords = (prefix: string[]) => [...new Set(commands.filter((c) => c.path.length > prefix.length && prefix.every((w, i) => c.path[i] === w)).map((c) => c.path[prefix.length]!))]
  let out: string[]
  if (found?.cmd.path[0] === 'help') out = nextWords(found.rest)
  else if (!found) out = nextWords(before)
  else {
    const { cmd, rest } = found
    const opts = allOptions(cmd)
    const prev = rest[rest.length - 1]
    const prevOpt = prev?.startsWith('--') ? opts[prev.slice(2)] : prev?.startsWith('-') ? Object.values(opts).find((o) => o.short === prev.slice(1)) : undefined
    if (prevOpt?.type === 'string') out = await values(prevOpt.complete, names)
    else if (cur.startsWith('-')) out = Object.entries(opts).map(([n]) => `--${n}`)
    else {
      // which positional this is: the words after the verb that are neither flags nor their values
      let index = 0
      for (let i = 0; i < rest.length; i++) {
        const w = rest[i]!
        if (w === '--') return [FILES]
        if (w.startsWith('-')) {
          const o = w.startsWith('--') ? opts[w.slice(2)] : Object.values(opts).find((x) => x.short === w.slice(1))
          if (o?.type === 'string' && !w.includes('=')) i++
          continue
        }
        index++
      }
      const sub = rest.length === 0 ? nextWords(cmd.path) : []
      out = [...sub, ...(await values(cmd.args?.[index]?.complete, names))]
      if (out.length === 0) out = Object.entries(opts).map(([n]) => `--${n}`)
    }
  }
  if (out.length === 1 && out[0] === FILES) return out
  return out.filter((w) => w.startsWith(cur))
}

export function completionScript(shell: Shell): string {
  switch (shell) {
    case 'bash':
      return `# berth completion for bash. Load it with: source <(berth completion bash)
# or keep it: berth completion bash > ~/.local/share/bash-completion/completions/berth
_berth() {
  local cur words cword out
  if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
    _get_comp_words_by_ref -n := cur words cword
  else
    cur="\${COMP_WORDS[COMP_CWORD]}"; words=("\${COMP_WORDS[@]}"); cword=$COMP_CWORD
  fi
  out="$(berth __complete "\${words[@]:1:cword}" 2>/dev/null)"
  if [ "$out" = "${FILES}" ]; then
    COMPREPLY=($(compgen -f -- "$cur"))
  else
    local IFS=$'\\n'
    COMPREPLY=($(compgen -W "$out" -- "$cur"))
  fi
  if declare -F __ltrim_colon_completions >/dev/null 2>&1; then __ltrim_colon_completions "$cur"; fi
}
complete -F _berth berth
`
    case 'zsh':
      return `#compdef berth
# berth completion for zsh. Load it with: source <(berth completion zsh)   (after compinit)
# or keep it as _berth in a folder of your $fpath
_berth() {
  local -a out
  out=("\${(@f)$(berth __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if [[ "\${out[1]}" == "${FILES}" ]]; then
    _files
  elif (( \${#out} )) && [[ -n "\${out[1]}" ]]; then
    compadd -Q -- "\${out[@]}"
  fi
}
if (( \${+functions[compdef]} )); then compdef _berth berth; fi
`
    case 'fish':
      return `# berth completion for fish. Load it with: berth completion fish | source
# or keep it: berth completion fish > ~/.config/fish/completions/berth.fish
function __berth_complete
    set -l words (commandline -opc) (commandline -ct)
    set -e words[1]
    set -l out (berth __complete $words 2>/dev/null)
    if test "$out[1]" = "${FILES}"
        __fish_complete_path (commandline -ct)
    else
        printf '%s\\n' $out
    end
end
complete -c berth -f -a '(__berth_complete)'
`
  }
}
