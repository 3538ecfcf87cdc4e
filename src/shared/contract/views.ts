import { z } from 'zod'
import { call, SessionRef } from './define'
import { StreamId } from './streams'

/** A view is a tmux session inside the container: closing its terminal never kills its shell. */
export const ViewName = z
  .string()
  .min(1)
  .max(32)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'a view name is lowercase letters, digits and dashes')

export const View = z.object({
  name: ViewName,
  /** terminals attached to it right now (from any door, or an ssh client running tmux attach) */
  attached: z.number().int(),
  createdAt: z.string().nullable(),
})
export type View = z.infer<typeof View>

export const ViewOpened = z.object({
  streamId: StreamId,
  view: ViewName,
  /** false where the image has no tmux: the terminal is a plain shell that ends with its tab */
  persistent: z.boolean(),
})
export type ViewOpened = z.infer<typeof ViewOpened>

export const viewCalls = {
  'view.list': call(z.object({ id: SessionRef }), z.array(View), "a running session's views"),
  'view.open': call(
    z.object({
      id: SessionRef,
      /** attach to this view, creating it if needed; without one, a new view gets the next free name */
      view: ViewName.optional(),
      cols: z.number().int().min(2).max(1000),
      rows: z.number().int().min(2).max(1000),
      /** send the view's earlier output first (a fresh terminal); a reattaching one keeps its own */
      history: z.boolean().optional(),
    }),
    ViewOpened,
    'attach a terminal to a view; its output arrives as stream.data, input goes through stream.write',
  ),
  'view.close': call(
    z.object({ id: SessionRef, view: ViewName }),
    z.object({ closed: z.boolean() }),
    'end a view and the shell in it',
  ),
} as const
