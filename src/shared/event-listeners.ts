// The listeners of contract events, by event name: each door's client side (the Electron preload,
// the WebSocket bridge, the renderer tests' fake core) receives events its own way and hands them
// out the same way.

export class EventListeners {
  private readonly byName = new Map<string, Set<(payload: unknown) => void>>()

  /** Returns the function that removes the listener. */
  add(name: string, listener: (payload: unknown) => void): () => void {
    let set = this.byName.get(name)
    if (!set) this.byName.set(name, (set = new Set()))
    set.add(listener)
    return () => {
      set.delete(listener)
    }
  }

  emit(name: string, payload: unknown): void {
    // a copy: a listener may remove itself (or add another) while it runs
    for (const fn of [...(this.byName.get(name) ?? [])]) fn(payload)
  }
}
