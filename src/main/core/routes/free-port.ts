import type { Server } from 'node:net'

/** Listens on `preferred` or, when it is taken, the next free port above it (loopback only). */
export async function listenOnFreePort(server: Server, preferred: number, host = '127.0.0.1', tries = 100): Promise<number> {
  let last: Error | undefined
  for (let port = preferred; port < Math.min(65536, preferred + tries); port++) {
    try {
      await new Promise<void>((resolve, reject) => {
        const onError = (e: Error) => {
          server.off('listening', onListening)
          reject(e)
        }
        const onListening = () => {
          server.off('error', onError)
          resolve()
        }
        server.once('error', onError)
        server.once('listening', onListening)
        server.listen({ port, host, exclusive: true })
      })
      const addr = server.address()
      return typeof addr === 'object' && addr ? addr.port : port
    } catch (e) {
      last = e as Error
      const code = (e as { code?: string }).code
      if (code !== 'EADDRINUSE' && code !== 'EACCES') throw e
    }
  }
  throw new Error(`no free port on ${host} from ${preferred} to ${preferred + tries - 1}: ${last?.message ?? ''}`)
}
