import type Dockerode from 'dockerode'
import type { EngineFacts } from './engine'

export async function readFacts(docker: Dockerode, dockerHost: string): Promise<EngineFacts> {
  const [info, version] = await Promise.all([docker.info() as Promise<Record<string, unknown>>, docker.version()])
  return {
    version: version.Version,
    apiVersion: version.ApiVersion,
    experimental: info.ExperimentalBuild === true,
    os: String(info.OperatingSystem ?? ''),
    kernel: String(info.KernelVersion ?? ''),
    dockerRootDir: String(info.DockerRootDir ?? '/var/lib/docker'),
    dockerHost,
  }
}
