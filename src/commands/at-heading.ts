import type {AtPoint} from '../app/at'
import {engine} from './engine-loader'

/** The first line of a read's text when it shows a past state (--at): which state is shown; '' for the live list. */
export function atHeading(r: object): string {
  const at = (r as {at?: AtPoint}).at
  return at ? `${engine().timeTravel.atLine(at)}\n` : ''
}
