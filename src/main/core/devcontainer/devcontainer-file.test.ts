import { describe, expect, it } from 'vitest'
import { ignoredLine } from '../../../shared/format'
import { parseDevcontainer } from './devcontainer-file'

const F = '.devcontainer/devcontainer.json'

describe('devcontainer.json as the specification reads it', () => {
  it('takes comments and trailing commas, and maps every key Berth supports', () => {
    const plan = parseDevcontainer(
      `// a project's environment
      {
        /* built on the session's server */
        "build": { "dockerfile": "Dockerfile", "context": "..", "args": { "VARIANT": "3" }, },
        "containerEnv": { "GREETING": "hello" }, // for every process
        "remoteEnv": { "EDITOR": "vi" },
        "remoteUser": "dev",
        "forwardPorts": [8080, "localhost:3000", "db:5432"],
        "postCreateCommand": ["make", "deps"],
        "postStartCommand": { "web": "python3 -m http.server 8080", "log": ["echo", "up"] },
        "mounts": ["source=cache,target=/cache,type=volume", { "type": "bind", "source": "/etc", "target": "/x" }],
        "runArgs": ["--cpus=1.5", "--memory", "512m", "--pids-limit", "200", "--privileged"],
        "features": { "ghcr.io/devcontainers/features/node:1": {} },
        "customizations": { "vscode": { "extensions": [] } },
      }`,
      F,
    )
    expect(plan.build).toEqual({ dockerfile: 'Dockerfile', context: '..', args: { VARIANT: '3' } })
    expect(plan.image).toBeUndefined()
    expect(plan.containerEnv).toEqual({ GREETING: 'hello' })
    expect(plan.remoteEnv).toEqual({ EDITOR: 'vi' })
    expect(plan.remoteUser).toBe('dev')
    expect(plan.forwardPorts).toEqual([8080, 3000])
    expect(plan.postCreate).toEqual([{ argv: ['make', 'deps'] }])
    expect(plan.postStart).toEqual([
      { name: 'web', argv: ['/bin/sh', '-c', 'python3 -m http.server 8080'] },
      { name: 'log', argv: ['echo', 'up'] },
    ])
    expect(plan.volumes).toEqual([{ source: 'cache', target: '/cache' }])
    expect(plan.limits).toEqual({ cpus: 1.5, memoryBytes: 512 * 2 ** 20, pids: 200 })
    expect(plan.ignored).toEqual([
      'features',
      'customizations.vscode',
      'forwardPorts db:5432',
      'mounts {"type":"bind","source":"/etc","target":"/x"} (only volumes)',
      'runArgs --privileged',
    ])
    expect(ignoredLine(plan.ignored)).toMatch(/^ignored: features, customizations\.vscode, .*Features are not supported yet; they may come in a later Berth/)
  })

  it('takes an image, the string form of a command, and the legacy dockerFile key', () => {
    expect(parseDevcontainer('{"image": "debian:12", "postStartCommand": "echo hi"}', F)).toMatchObject({
      image: 'debian:12',
      postStart: [{ argv: ['/bin/sh', '-c', 'echo hi'] }],
      ignored: [],
    })
    expect(parseDevcontainer('{"dockerFile": "Dockerfile"}', F).build).toEqual({ dockerfile: 'Dockerfile', context: '.', args: {} })
    expect(ignoredLine([])).toBeNull()
  })

  it('says where the file is broken, and what a value should be', () => {
    expect(() => parseDevcontainer('{\n  "image": "x",\n  "remoteUser": \n}', F)).toThrow(/not valid JSON with comments: ValueExpected at line 4, column 1/)
    expect(() => parseDevcontainer('[]', F)).toThrow(/does not hold an object/)
    expect(() => parseDevcontainer('{"name": "x"}', F)).toThrow(/neither an image nor a build/)
    expect(() => parseDevcontainer('{"image": "x", "containerEnv": {"A B": "1"}}', F)).toThrow(/containerEnv\.A B: an environment name/)
    expect(() => parseDevcontainer('{"image": "x", "remoteUser": "dev; rm -rf /"}', F)).toThrow(/remoteUser/)
    expect(() => parseDevcontainer('{"image": "x", "runArgs": ["--memory", "lots"]}', F)).toThrow(/--memory lots is not a size/)
    expect(() => parseDevcontainer('{"image": "x", "mounts": ["source=../x,target=/y,type=volume"]}', F)).toThrow(/not a volume name/)
    expect(() => parseDevcontainer('{"image": "x", "mounts": ["source=v,target=/workspace,type=volume"]}', F)).toThrow(/Berth's own/)
  })
})
